/** `npm run build` target `anchor-contract`: compiles KitAnchor.sol and writes its committed artifact (see contract.ts). */
import fs from 'node:fs';
import path from 'node:path';
import { artifactText, compileAnchorContract, CONTRACT_ARTIFACT } from './contract';

const artifact = compileAnchorContract();
const text = artifactText(artifact);
const before = fs.existsSync(CONTRACT_ARTIFACT) ? fs.readFileSync(CONTRACT_ARTIFACT, 'utf8') : '';
if (before !== text) fs.writeFileSync(CONTRACT_ARTIFACT, text);
console.log(
  `${path.relative(process.cwd(), CONTRACT_ARTIFACT)} ${before === text ? 'unchanged' : 'written'} (solc ${artifact.compiler}, ${(artifact.bytecode.length - 2) / 2} bytes)`,
);
