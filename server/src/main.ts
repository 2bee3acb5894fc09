/** `npm run server`: runs the service (no front-end builds; `npm start` builds them first). */
import { runService } from './service';

runService().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
