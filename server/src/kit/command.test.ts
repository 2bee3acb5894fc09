import { parseCommandArgs, UsageError } from './command';

const options = { secret: { type: 'string', short: 's' }, json: { type: 'boolean' } } as const;

describe('kit command arguments', () => {
  it('takes an option value that starts with "-" (app secrets are base64url and sometimes do)', () => {
    expect(parseCommandArgs(['--secret', '-Xy_9', 'id1'], options)).toMatchObject({ values: { secret: '-Xy_9' }, positionals: ['id1'] });
    expect(parseCommandArgs(['-s', '--abc', 'id1'], options)).toMatchObject({ values: { secret: '--abc' }, positionals: ['id1'] });
    expect(parseCommandArgs(['--secret=-Xy', '--json'], options)).toMatchObject({ values: { secret: '-Xy', json: true }, positionals: [] });
  });

  it('leaves everything after "--" as positionals', () => {
    expect(parseCommandArgs(['--', '--secret', 'x'], options).positionals).toEqual(['--secret', 'x']);
  });

  it('refuses unknown flags and a value-taking flag at the end as usage errors', () => {
    expect(() => parseCommandArgs(['--colour'], options)).toThrow(UsageError);
    expect(() => parseCommandArgs(['--secret'], options)).toThrow(UsageError);
    expect(() => parseCommandArgs(['--json=yes'], options)).toThrow(UsageError);
  });
});
