// The imaging records, in a file of their own so that the steps and decoders import them, not each other.

/** Plain RGBA pixels (8 bits a channel, not premultiplied), as every step takes and gives them. */
export interface RawImage {
  /** width × height × 4 bytes, rows top to bottom. */
  data: Buffer;
  width: number;
  height: number;
}

export interface Rect {
  left: number;
  top: number;
  width: number;
  height: number;
}
