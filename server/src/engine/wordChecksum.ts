/**
 * A checksum of bytes fast enough for the launcher to check V8's code cache (half a megabyte) on every start
 * (Node's crypto is not loaded then, and a byte at a time costs milliseconds): two lanes of 32-bit words,
 * each an FNV-1a step per word with its own prime, then the bytes past the last whole word and the length.
 * Each step is a bijection of the lane for a given word and differs for different words, so any one damaged
 * word changes both lanes; it detects damage, not tampering (nobody else writes the user's own cache).
 */
export function wordChecksum(bytes: Uint8Array): string {
  const words = bytes.length >>> 2;
  // bytes at an offset that is not a multiple of 4 are read from a copy (new Uint8Array copies; a Buffer's
  // slice would not: it shares the pool its bytes sit in, whose buffer starts elsewhere)
  const view =
    bytes.byteOffset % 4 === 0
      ? new Int32Array(bytes.buffer, bytes.byteOffset, words)
      : new Int32Array(new Uint8Array(bytes.subarray(0, words * 4)).buffer, 0, words);
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < words; i++) {
    const w = view[i]!;
    a = Math.imul(a ^ w, 0x01000193);
    b = Math.imul(b ^ w, 0x5bd1e995);
  }
  for (let i = words * 4; i < bytes.length; i++) {
    a = Math.imul(a ^ bytes[i]!, 0x01000193);
    b = Math.imul(b ^ bytes[i]!, 0x5bd1e995);
  }
  a = Math.imul(a ^ bytes.length, 0x01000193);
  b = Math.imul(b ^ bytes.length, 0x5bd1e995);
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}
