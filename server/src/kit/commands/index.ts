/** Every `kit` sub-command; each feature adds its list here. */
import type { KitCommand } from '../command';
import { appCommands } from './app';
import { merchantCommands } from './merchant';
import { chainCommands } from './chain';
import { anchorCommands } from './anchor';
import { donationCommands } from './donation';
import { demoCommands } from './demo';
import { reconcileCommands } from './reconcile';

export const commands: KitCommand[] = [
  ...appCommands,
  ...merchantCommands,
  ...chainCommands,
  ...anchorCommands,
  ...donationCommands,
  ...demoCommands,
  ...reconcileCommands,
];
