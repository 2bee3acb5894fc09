/**
 * The bill archive reader against an archive made by another implementation (Info-ZIP `zip` 3.0,
 * `LANG=C`: a GBK file name stored as its bytes without the UTF-8 flag, as Alipay's archives name
 * their entries; one entry deflated, one stored), and archives spoiled in the ways a download can
 * spoil them.
 */
import { deflateRawSync } from 'node:zlib';
import iconv from 'iconv-lite';
import { readZip, ZipFormatError } from './zip-reader';

// zip -X a.zip <GBK name>; zip -X -0 a.zip stored.txt
const INFO_ZIP =
  'UEsDBBQAAAAIALuSe131WSSmIgAAAEgDAAAqAAAAMjA4ODAwMDAwMDAwMDAwMDAxNTZfMjAyNjExMjZf0rXO8cP3z7guY3N2U762fMe2jcsubT338fD38zs2vby4npdLeVRwVHBUkBRBAFBLAwQKAAAAAAC7kntdDzaiJg0AAAANAAAACgAAAHN0b3JlZC50eHRrZXB0IGFzIGl0IGlzUEsBAh4DFAAAAAgAu5J7XfVZJKYiAAAASAMAACoAAAAAAAAAAQAAAKSBAAAAADIwODgwMDAwMDAwMDAwMDAwMTU2XzIwMjYxMTI2X9K1zvHD98+4LmNzdlBLAQIeAwoAAAAAALuSe10PNqImDQAAAA0AAAAKAAAAAAAAAAAAAACkgWoAAABzdG9yZWQudHh0UEsFBgAAAAACAAIAkAAAAJ8AAAAAAA==';

const archive = () => Buffer.from(INFO_ZIP, 'base64');

test('reads a deflated entry with a GBK name and a stored one, as another implementation wrote them', () => {
  const entries = readZip(archive());
  expect(entries.map((e) => e.name)).toEqual(['20880000000000000156_20261126_业务明细.csv', 'stored.txt']);
  expect(iconv.decode(entries[0].data, 'gbk')).toBe('#支付宝业务明细查询\r\n'.repeat(40));
  expect(entries[1].data.toString()).toBe('kept as it is');
});

test('an archive cut short, a spoiled byte, or something else than a ZIP is refused, never half-read', () => {
  const zip = archive();
  expect(() => readZip(zip.subarray(0, zip.length - 10))).toThrow(ZipFormatError);
  expect(() => readZip(zip.subarray(0, Math.floor(zip.length / 2)))).toThrow(/no end of central directory/);
  // A byte of the stored entry's data changed: its CRC-32 no longer matches.
  const spoiled = Buffer.from(zip);
  const at = spoiled.indexOf('kept as it is');
  spoiled[at] = 'K'.charCodeAt(0);
  expect(() => readZip(spoiled)).toThrow(/stored\.txt: CRC-32 does not match/);
  // The deflated entry's bytes spoiled: it does not inflate, or inflates to something else.
  const bad = Buffer.from(zip);
  bad[30 + 42 + 3] ^= 0xff;
  expect(() => readZip(bad)).toThrow(ZipFormatError);
  expect(() => readZip(Buffer.from('<html>expired</html>'))).toThrow(/not a ZIP archive/);
});

test('an entry inflating beyond what the directory says, and more entries or bytes than allowed, are refused', () => {
  const zip = archive();
  // The directory promises 840 bytes for the first entry; say 10 instead (local and central headers).
  const lying = Buffer.from(zip);
  lying.writeUInt32LE(10, 22);
  const central = lying.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  lying.writeUInt32LE(10, central + 24);
  expect(() => readZip(lying)).toThrow(/does not inflate/);
  expect(() => readZip(zip, { maxEntries: 1, maxBytes: 1 << 20 })).toThrow(/2 entries, more than 1/);
  expect(() => readZip(zip, { maxEntries: 8, maxBytes: 100 })).toThrow(/inflates to more than 100 bytes/);
});

test('a UTF-8 flagged name is read as UTF-8, and an unknown compression method is refused', () => {
  const data = Buffer.from('x');
  const name = Buffer.from('明细.csv');
  const deflated = deflateRawSync(data);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(0x0800, 6);
  local.writeUInt16LE(8, 8);
  local.writeUInt32LE(0x8cdc1683, 14); // CRC-32 of "x"
  local.writeUInt32LE(deflated.length, 18);
  local.writeUInt32LE(1, 22);
  local.writeUInt16LE(name.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(0x0800, 8);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(0x8cdc1683, 16);
  central.writeUInt32LE(deflated.length, 20);
  central.writeUInt32LE(1, 24);
  central.writeUInt16LE(name.length, 28);
  const body = Buffer.concat([local, name, deflated]);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(46 + name.length, 12);
  end.writeUInt32LE(body.length, 16);
  const zip = Buffer.concat([body, central, name, end]);
  expect(readZip(zip)).toEqual([{ name: '明细.csv', data }]);
  const bzip2 = Buffer.from(zip);
  bzip2.writeUInt16LE(12, body.length + 10);
  expect(() => readZip(bzip2)).toThrow(/compression method 12 is not read/);
});
