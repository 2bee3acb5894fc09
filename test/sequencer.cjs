/**
 * The order in which `npm test`'s workers take suites. Jest runs the longest first by their last
 * recorded time, and, with none recorded (a fresh clone, as CI runs it), the largest file first.
 * Size misjudges the browser suites: each drives Chromium through many screens and is among the
 * longest of the run, so one taken last holds its end. Without a recorded time they go first.
 */
const Sequencer = require('@jest/test-sequencer').default;

class KitSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const first = sorted.filter((t) => t.duration == null && t.context.config.displayName?.name === 'browser');
    return [...first, ...sorted.filter((t) => !first.includes(t))];
  }
}

module.exports = KitSequencer;
