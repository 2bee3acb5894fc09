/** The committed anchor contract artifact is what its source compiles to, and the event topic shared/ uses is the contract's. */
import fs from 'node:fs';
import { id, Interface } from 'ethers';
import { ANCHORED_EVENT_TOPIC } from '@kit/shared';
import { artifactText, compileAnchorContract, CONTRACT_ARTIFACT } from './contract';

describe('the anchor contract', () => {
  const compiled = compileAnchorContract();

  test('compiles from KitAnchor.sol to exactly the committed artifact (run `npm run build` after changing the source)', () => {
    expect(fs.readFileSync(CONTRACT_ARTIFACT, 'utf8')).toBe(artifactText(compiled));
  });

  test('emits Anchored(uint64 indexed, uint64 indexed, bytes32, bytes32) with the topic shared/ checks receipts for', () => {
    const event = new Interface(compiled.abi as string[]).getEvent('Anchored')!;
    expect(event.format('sighash')).toBe('Anchored(uint64,uint64,bytes32,bytes32)');
    expect(event.inputs.map((i) => [i.type, i.indexed])).toEqual([
      ['uint64', true],
      ['uint64', true],
      ['bytes32', false],
      ['bytes32', false],
    ]);
    expect(event.topicHash).toBe(ANCHORED_EVENT_TOPIC);
    expect(id('Anchored(uint64,uint64,bytes32,bytes32)')).toBe(ANCHORED_EVENT_TOPIC);
  });

  test('uses no opcode newer than Paris (PUSH0, TLOAD, TSTORE, MCOPY), so older EVM chains run it', () => {
    const code = Buffer.from(compiled.bytecode.slice(2), 'hex');
    const newer = new Set([0x5c, 0x5d, 0x5e, 0x5f]);
    const found: string[] = [];
    for (let pc = 0; pc < code.length; pc++) {
      const op = code[pc];
      if (newer.has(op)) found.push(`0x${op.toString(16)} at ${pc}`);
      // PUSH1..PUSH32 carry 1..32 bytes of data, which are not opcodes.
      if (op >= 0x60 && op <= 0x7f) pc += op - 0x5f;
    }
    expect(compiled.evmVersion).toBe('paris');
    expect(found).toEqual([]);
  });
});
