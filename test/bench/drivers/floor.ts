/** The floor of a payment notification with its callback (lib/floor.ts), in a process of its own like the service. */
import { serve } from '../lib/rpc';
import { startFloor, type FloorArgs } from '../lib/floor';

serve({
  async start(a: FloorArgs): Promise<{ url: string }> {
    return { url: (await startFloor(a)).url };
  },
});
