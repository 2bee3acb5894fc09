/**
 * A `kit` command next to a running service must act on that service's database and point at its
 * port. The service says both in `DATA_DIR/service.json` (`service-file.ts`); what this command
 * was configured with that disagrees is named here, both sides, and the command stops.
 */
import type { Config } from '../config';
import { databaseIdentity, type RunningService } from '../service-file';

/** What this command's settings disagree with the running service on, one sentence each; empty when nothing. */
export function disagreements(config: Config, env: NodeJS.ProcessEnv, service: RunningService): string[] {
  const out: string[] = [];
  const mine = databaseIdentity(config);
  if (mine !== service.database) out.push(`the service works on the database ${service.database}; this command would work on ${mine}`);
  // Only a PORT given to this command can disagree: without one, the service's real port is used.
  if (env.PORT !== undefined && env.PORT.trim() !== '' && config.PORT !== service.port && config.PORT !== service.configuredPort) {
    out.push(`the service listens on port ${service.port} (${service.url}); this command was given PORT=${config.PORT}`);
  }
  const publicUrl = config.PUBLIC_URL?.replace(/\/+$/, '');
  if (publicUrl && publicUrl !== (service.publicUrl ?? service.url)) {
    out.push(`the service's PUBLIC_URL is ${service.publicUrl ?? `unset (it is reached at ${service.url})`}; this command was given PUBLIC_URL=${publicUrl}`);
  }
  return out;
}

/** The message a refused command prints on stderr. */
export function refusal(service: RunningService, problems: readonly string[], settingsFile: string | undefined): string {
  return [
    `refused: a service is running on this DATA_DIR (pid ${service.pid}, ${service.url}, since ${service.startedAt}) with other settings:`,
    ...problems.map((p) => `  - ${p}`),
    `Run the command with the service's settings: put them in the settings file${settingsFile ? ` (${settingsFile})` : ' (.env at the checkout root, or KIT_ENV_FILE)'}, which the service and every kit command read alike, or give the command the same environment as the service.`,
  ].join('\n');
}
