/**
 * Which database errors mean "unavailable, retry later" (503) and which are faults (500). The
 * errors are the pg driver's own `DatabaseError`s with the fields PostgreSQL sends; the API suite
 * (server/test/api/database-unavailable.test.ts) meets the real ones on a fenced database.
 */
import pg from 'pg';
import { isDatabaseUnavailable } from './errors';

/** A server error as the pg driver builds it from PostgreSQL's ErrorResponse. */
function pgError(code: string, message: string, fields: { severity?: string; routine?: string } = {}): pg.DatabaseError {
  const e = new pg.DatabaseError(message, message.length, 'error');
  return Object.assign(e, { code, severity: fields.severity ?? 'ERROR', routine: fields.routine });
}

describe('isDatabaseUnavailable', () => {
  it.each([
    // `alter database … allow_connections false`: each new session is refused.
    ['55000', 'database "kit" is not currently accepting connections', { severity: 'FATAL', routine: 'CheckMyDatabase' }],
    // The same with translated messages (`lc_messages`): the routine is not translated.
    ['55000', '数据库 "kit" 当前不接受连接', { severity: '致命错误', routine: 'CheckMyDatabase' }],
    // The same without the routine field (optional in the protocol).
    ['55000', 'database "kit" is not currently accepting connections', { severity: 'FATAL' }],
    // `pg_terminate_backend`, or a fast shutdown, under a running query.
    ['57P01', 'terminating connection due to administrator command', { severity: 'FATAL', routine: 'ProcessInterrupts' }],
    // A server starting up or in recovery after a failover.
    ['57P03', 'the database system is not yet accepting connections', { severity: 'FATAL', routine: 'ProcessStartupPacket' }],
    ['57P03', 'the database system is starting up', { severity: 'FATAL' }],
    // The connection broke.
    ['08006', 'connection failure', {}],
    // A standby that is read-only (the old primary after a failover, or a writer pointed at a replica).
    ['25006', 'cannot execute INSERT in a read-only transaction', { routine: 'PreventCommandIfReadOnly' }],
  ])('%s %s: unavailable', (code, message, fields) => {
    expect(isDatabaseUnavailable(pgError(code, message, fields))).toBe(true);
  });

  it.each([
    // 55000 in general is "object not in prerequisite state": a fault of the query, the same on a retry.
    ['55000', 'currval of sequence "s" is not yet defined in this session', { routine: 'currval_oid' }],
    ['55000', 'materialized view "m" has not been populated', { routine: 'ExecCheckRelationsScannable' }],
    ['42P01', 'relation "nope" does not exist', { routine: 'parserOpenTable' }],
    ['23505', 'duplicate key value violates unique constraint "k"', {}],
    ['22021', 'invalid byte sequence for encoding "UTF8": 0x00', {}],
  ])('%s %s: a fault, not unavailability', (code, message, fields) => {
    expect(isDatabaseUnavailable(pgError(code, message, fields))).toBe(false);
  });
});
