/**
 * A small ZIP reader for Alipay's bill archives (PKWARE APPNOTE 4.3): the central directory found
 * from its end record, each entry stored (method 0) or deflated (method 8, `inflateRaw`), its size
 * and CRC-32 checked, so a file cut short or spoiled in transfer is refused rather than half-read.
 * Alipay names its entries in GBK without the UTF-8 flag (bit 11); a name with the flag is UTF-8.
 * No ZIP64, no encryption, no multi-disk archives: a bill needs none of them, and what is not
 * understood is refused.
 */
import { crc32, inflateRawSync } from 'node:zlib';

export class ZipFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ZipFormatError';
  }
}

export interface ZipEntry {
  name: string;
  data: Buffer;
}

export interface ZipLimits {
  /** At most this many entries (a bill has two). */
  maxEntries: number;
  /** At most this many bytes, all entries together, once inflated. */
  maxBytes: number;
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_HEADER = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;
const FLAG_ENCRYPTED = 0x0001;
const FLAG_UTF8 = 0x0800;
const gbk = new TextDecoder('gbk', { fatal: true });
const utf8 = new TextDecoder('utf-8', { fatal: true });

const DEFAULT_LIMITS: ZipLimits = { maxEntries: 64, maxBytes: 512 * 1024 * 1024 };

/** The archive's files (directories left out), in the central directory's order. */
export function readZip(zip: Buffer, limits: ZipLimits = DEFAULT_LIMITS): ZipEntry[] {
  const end = findEnd(zip);
  const disk = zip.readUInt16LE(end + 4);
  const cdDisk = zip.readUInt16LE(end + 6);
  const count = zip.readUInt16LE(end + 10);
  const cdSize = zip.readUInt32LE(end + 12);
  const cdOffset = zip.readUInt32LE(end + 16);
  if (disk !== 0 || cdDisk !== 0 || zip.readUInt16LE(end + 8) !== count) throw new ZipFormatError('multi-disk archives are not read');
  if (count === 0xffff || cdOffset === 0xffffffff || cdSize === 0xffffffff) throw new ZipFormatError('ZIP64 archives are not read');
  if (count > limits.maxEntries) throw new ZipFormatError(`the archive holds ${count} entries, more than ${limits.maxEntries}`);
  if (cdOffset + cdSize > end) throw new ZipFormatError('the central directory lies outside the archive (cut short?)');

  const out: ZipEntry[] = [];
  let total = 0;
  let at = cdOffset;
  for (let i = 0; i < count; i++) {
    need(zip, at, 46, 'central directory header');
    if (zip.readUInt32LE(at) !== CENTRAL_HEADER) throw new ZipFormatError(`central directory entry ${i + 1} has no signature`);
    const flags = zip.readUInt16LE(at + 8);
    const method = zip.readUInt16LE(at + 10);
    const crc = zip.readUInt32LE(at + 16);
    const compressedSize = zip.readUInt32LE(at + 20);
    const size = zip.readUInt32LE(at + 24);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const localOffset = zip.readUInt32LE(at + 42);
    need(zip, at + 46, nameLength, 'entry name');
    const name = decodeName(zip.subarray(at + 46, at + 46 + nameLength), flags);
    at += 46 + nameLength + extraLength + commentLength;
    if (name.endsWith('/')) continue;
    if (flags & FLAG_ENCRYPTED) throw new ZipFormatError(`${name} is encrypted`);
    total += size;
    if (total > limits.maxBytes) throw new ZipFormatError(`the archive inflates to more than ${limits.maxBytes} bytes`);

    // The local header repeats the name and has its own extra field: the data starts after both.
    need(zip, localOffset, 30, `local header of ${name}`);
    if (zip.readUInt32LE(localOffset) !== LOCAL_HEADER) throw new ZipFormatError(`${name}: local header has no signature`);
    const start = localOffset + 30 + zip.readUInt16LE(localOffset + 26) + zip.readUInt16LE(localOffset + 28);
    need(zip, start, compressedSize, `data of ${name}`);
    const raw = zip.subarray(start, start + compressedSize);
    let data: Buffer;
    if (method === 0) data = Buffer.from(raw);
    else if (method === 8) data = inflate(raw, size, name);
    else throw new ZipFormatError(`${name}: compression method ${method} is not read (stored and deflate are)`);
    if (data.length !== size) throw new ZipFormatError(`${name}: ${data.length} bytes, the directory says ${size}`);
    if (crc32(data) >>> 0 !== crc) throw new ZipFormatError(`${name}: CRC-32 does not match (spoiled in transfer?)`);
    out.push({ name, data });
  }
  return out;
}

/** The end record: the last signature that leaves room for its own comment (at most 65535 bytes). */
function findEnd(zip: Buffer): number {
  if (zip.length < 22) throw new ZipFormatError(`${zip.length} bytes are not a ZIP archive`);
  const lowest = Math.max(0, zip.length - 22 - 0xffff);
  for (let at = zip.length - 22; at >= lowest; at--) {
    if (zip.readUInt32LE(at) === END_OF_CENTRAL_DIRECTORY && at + 22 + zip.readUInt16LE(at + 20) === zip.length) return at;
  }
  throw new ZipFormatError('no end of central directory: not a ZIP archive, or one cut short');
}

function need(zip: Buffer, at: number, length: number, what: string): void {
  if (at + length > zip.length) throw new ZipFormatError(`${what} lies outside the archive (cut short?)`);
}

function decodeName(bytes: Buffer, flags: number): string {
  try {
    return (flags & FLAG_UTF8 ? utf8 : gbk).decode(bytes);
  } catch {
    throw new ZipFormatError(`an entry name is not ${flags & FLAG_UTF8 ? 'UTF-8' : 'GBK'} text`);
  }
}

function inflate(raw: Buffer, size: number, name: string): Buffer {
  try {
    // Never more than the directory promises: a lying size cannot make it inflate without bound.
    return inflateRawSync(raw, { maxOutputLength: Math.max(size, 1) });
  } catch (e) {
    throw new ZipFormatError(`${name} does not inflate: ${(e as Error).message}`);
  }
}
