import { systemClock } from '../../kernel/clock.js';
import { defineCommand } from '../command.js';
import { stopOnSignals } from '../stop-signal.js';

/** `queue-drill world-host`: many worlds in one process, opened and closed by the harness (a drill's scenarios share it). */
export const worldHostCommand = defineCommand({
  name: 'world-host',
  describe: "serve the worlds of a drill's scenarios from one process, each opened and closed by the harness on 127.0.0.1",
  fast: true,
  options: {},
  async run() {
    const { runWorldHost } = await import('../../world/world-host.js');
    const stop = stopOnSignals();
    try {
      await runWorldHost({ clock: systemClock(), signal: stop.signal });
    } finally {
      stop.dispose();
    }
  },
});
