/** Every bench scenario, in the order they run: the memory one first, while the instances are fresh. */
import type { Scenario } from '../lib/bench';
import { holds } from './holds';
import { apiScenarios } from './api';
import { chainScenarios } from './chain';
import { paymentScenarios } from './payments';
import { secondInstance } from './second-instance';
import { soak } from './soak';

export const scenarios: Scenario[] = [holds, ...apiScenarios, ...chainScenarios, ...paymentScenarios, secondInstance, soak];

/** Scenarios whose id or name contains the filter (case-insensitive); all without one. */
export function choose(filter: string | undefined): Scenario[] {
  if (!filter) return scenarios.filter((s) => !s.onlyWhenNamed);
  const f = filter.toLowerCase();
  return scenarios.filter((s) => s.id.includes(f) || s.name.toLowerCase().includes(f));
}
