import PgBoss from 'pg-boss';

/** The one queue of a drill, in the drill's own schema (one schema per run isolates runs). */
export const QUEUE_NAME = 'drill';

/**
 * Who a pg-boss instance works for. Its connections carry it as their
 * application_name, which the history trigger records with every change: the
 * database's note of which connection made it, so a claim names its worker.
 */
export type BossRole = 'provision' | 'client' | 'worker' | 'maintenance' | 'human';

const APP_PREFIX = 'qd-pgboss';

export function applicationName(role: BossRole, id: string): string {
  // PostgreSQL keeps 63 bytes of it.
  return `${APP_PREFIX}:${role}:${id}`.slice(0, 63);
}

/** The role and id a history row's application_name names, or nulls for a connection that is not the drill's. */
export function parseApplicationName(app: string): { role: BossRole | null; id: string | null } {
  const [prefix, role, ...rest] = app.split(':');
  if (prefix !== APP_PREFIX || role === undefined) return { role: null, id: null };
  return { role: role as BossRole, id: rest.join(':') || null };
}

/**
 * A pg-boss instance on a drill's schema. Nothing of pg-boss's own is made or
 * migrated outside provision (`migrate: false` elsewhere), no cron, and no
 * maintenance unless asked (`supervise`): each process decides.
 */
export function openBoss(url: string, schema: string, role: BossRole, id: string, extra: PgBoss.ConstructorOptions = {}): PgBoss {
  const boss = new PgBoss({
    connectionString: url,
    schema,
    application_name: applicationName(role, id),
    supervise: false,
    schedule: false,
    migrate: role === 'provision',
    max: 2,
    ...extra,
  });
  // pg-boss emits its loop's errors (a failed fetch, a failed maintenance); without a listener they would end the process.
  boss.on('error', () => {});
  return boss;
}
