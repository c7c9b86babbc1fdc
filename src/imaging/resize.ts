// Resizing: one geometry for every kernel (how large the picture becomes and where it sits in the
// output), then the pixels scaled by sharp, or, for `nearest`, here: sharp premultiplies alpha, which
// shifts the colour of a half-transparent pixel, and pixel art must keep every colour it had.
import { blank, blit, checkSize, type RawImage } from './raw.js';
import { IMAGE_LIMITS, type Fit, type ImageLimits, type Kernel } from './limits.js';
import { loadSharp } from './sharp.js';

export interface ResizeSpec {
  /** At least one of width and height; with one, the other follows the aspect ratio. */
  width?: number;
  height?: number;
  fit: Fit;
  kernel: Kernel;
}

export interface ResizeGeometry {
  /** The size the whole picture is scaled to. */
  scaledWidth: number;
  scaledHeight: number;
  /** The output's size, and where the scaled picture's top-left corner goes in it (negative: cropped). */
  width: number;
  height: number;
  left: number;
  top: number;
}

/**
 * contain: the whole picture inside width × height, centred on transparent padding; cover: the
 * picture fills width × height, centred, the overflow cut off; fill: stretched to width × height;
 * inside / outside: scaled as contain / cover, the output the scaled picture's size.
 */
export function resizeGeometry(sourceWidth: number, sourceHeight: number, spec: ResizeSpec): ResizeGeometry {
  const scaled = (scale: number) => ({
    scaledWidth: Math.max(1, Math.round(sourceWidth * scale)),
    scaledHeight: Math.max(1, Math.round(sourceHeight * scale)),
  });
  const { width, height } = spec;
  if (width === undefined || height === undefined) {
    const size = scaled(width !== undefined ? width / sourceWidth : height! / sourceHeight);
    return { ...size, width: size.scaledWidth, height: size.scaledHeight, left: 0, top: 0 };
  }
  if (spec.fit === 'fill') return { scaledWidth: width, scaledHeight: height, width, height, left: 0, top: 0 };
  const grow = spec.fit === 'cover' || spec.fit === 'outside';
  const size = scaled((grow ? Math.max : Math.min)(width / sourceWidth, height / sourceHeight));
  if (spec.fit === 'inside' || spec.fit === 'outside')
    return { ...size, width: size.scaledWidth, height: size.scaledHeight, left: 0, top: 0 };
  return { ...size, width, height, left: Math.floor((width - size.scaledWidth) / 2), top: Math.floor((height - size.scaledHeight) / 2) };
}

/** resizeGeometry, refused when the image it makes (or the scaled picture in it) is past `limits`. */
export function checkedResizeGeometry(sourceWidth: number, sourceHeight: number, spec: ResizeSpec, limits: ImageLimits): ResizeGeometry {
  const geometry = resizeGeometry(sourceWidth, sourceHeight, spec);
  checkSize(geometry.width, geometry.height, 'the resized image', limits);
  checkSize(geometry.scaledWidth, geometry.scaledHeight, 'the resized image', limits);
  return geometry;
}

export async function resizeImage(image: RawImage, spec: ResizeSpec, limits: ImageLimits = IMAGE_LIMITS): Promise<RawImage> {
  const geometry = checkedResizeGeometry(image.width, image.height, spec, limits);
  const scaled =
    spec.kernel === 'nearest'
      ? scaleNearest(image, geometry.scaledWidth, geometry.scaledHeight)
      : await scaleSmooth(image, geometry.scaledWidth, geometry.scaledHeight, spec.kernel);
  if (geometry.width === scaled.width && geometry.height === scaled.height) return scaled;
  const out = blank(geometry.width, geometry.height);
  blit(scaled, out, geometry.left, geometry.top);
  return out;
}

/** Each output pixel takes the source pixel under its centre: only the source's colours appear. */
export function scaleNearest(image: RawImage, width: number, height: number): RawImage {
  const out = blank(width, height);
  // Whole pixels moved as 32-bit words; an output row that samples the same source row as the one
  // above it is a copy of that row (every row of an enlargement's block after the first).
  const source = pixelWords(image.data);
  // blank() allocates the output's own memory: aligned, written in place.
  const target = new Uint32Array(out.data.buffer, out.data.byteOffset, width * height);
  const columns = Int32Array.from({ length: width }, (_, x) => Math.min(image.width - 1, Math.floor(((x + 0.5) * image.width) / width)));
  let previous = -1;
  for (let y = 0; y < height; y++) {
    const sourceRow = Math.min(image.height - 1, Math.floor(((y + 0.5) * image.height) / height)) * image.width;
    const row = y * width;
    if (sourceRow === previous) target.copyWithin(row, row - width, row);
    else for (let x = 0; x < width; x++) target[row + x] = source[sourceRow + columns[x]];
    previous = sourceRow;
  }
  return out;
}

/** An RGBA buffer's pixels as 32-bit words, to read (copied when the buffer does not start on a 4-byte boundary). */
function pixelWords(data: Buffer): Uint32Array {
  const aligned = data.byteOffset % 4 === 0 ? data : Buffer.from(data);
  return new Uint32Array(aligned.buffer, aligned.byteOffset, aligned.length / 4);
}

async function scaleSmooth(image: RawImage, width: number, height: number, kernel: Kernel): Promise<RawImage> {
  const sharp = await loadSharp();
  const { data, info } = await sharp(image.data, { raw: { width: image.width, height: image.height, channels: 4 } })
    .resize({ width, height, fit: 'fill', kernel })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}
