/**
 * 64-bit FNV-1a: a fast hash for names among a user's own caches and sockets, where loading Node's crypto
 * module would cost more than the hashing (about 4 ms).
 * Nobody chooses its input to collide; it detects damage, not tampering. The 64-bit state is kept as two
 * 32-bit halves: h = (h ^ c) * 0x100000001b3 mod 2^64.
 */

const hex = (hi: number, lo: number) => hi.toString(16).padStart(8, "0") + lo.toString(16).padStart(8, "0");

/** The hash of a text's UTF-16 code units, in hex. */
export function fnv1a64(text: string): string {
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  for (let i = 0; i < text.length; i++) {
    lo = (lo ^ text.charCodeAt(i)) >>> 0;
    const loMul = lo * 0x1b3;
    hi = (Math.imul(hi, 0x1b3) + Math.imul(lo, 0x100) + Math.floor(loMul / 0x100000000)) >>> 0;
    lo = loMul >>> 0;
  }
  return hex(hi, lo);
}
