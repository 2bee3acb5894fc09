/** Every bench scenario, in the order they run; each feature adds its list here. */
import type { BenchScenario } from '../harness';
import { coreScenarios } from './core';
import { chainScenarios } from './chain';
import { paymentScenarios } from './payments';

export const scenarios: BenchScenario[] = [...coreScenarios, ...chainScenarios, ...paymentScenarios];
