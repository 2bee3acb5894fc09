/** What a camera frame reader is, whichever reads it (`native-reader.ts`, `library-reader.ts`; `code-reader.ts` chooses). */

/** One frame in, the texts of the codes read in it out (none when it shows none). */
export interface CodeReader {
  readonly kind: 'native' | 'library';
  read(frame: HTMLVideoElement): Promise<string[]>;
}

/** The barcode formats wallets draw their payment codes in: the barcode and the QR code above it. */
export const CODE_FORMATS = ['code_128', 'qr_code'] as const;
