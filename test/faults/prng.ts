/**
 * A small deterministic PRNG for the fault suite: the same seed gives the same sequence on every
 * machine, so a schedule printed with its seed can be replayed exactly (Jepsen's nemesis schedules
 * are random but reproducible the same way). Algorithm: sfc32, seeded through splitmix32.
 * @see https://pracrand.sourceforge.net/RNG_engines.txt (sfc32)
 */

/** A seeded random source. Every method draws from one sequence, in call order. */
export interface Prng {
  /** The seed it was created with. */
  readonly seed: number;
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max] (both inclusive). */
  int(min: number, max: number): number;
  /** True with probability `p`. */
  chance(p: number): boolean;
  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T;
}

/** splitmix32 step: spreads a 32-bit seed over the generator's state words. */
function splitmix32(state: { s: number }): number {
  state.s = (state.s + 0x9e3779b9) | 0;
  let z = state.s;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

/** Creates an sfc32 generator from a 32-bit unsigned seed. */
export function createPrng(seed: number): Prng {
  const init = { s: seed >>> 0 };
  let a = splitmix32(init);
  let b = splitmix32(init);
  let c = splitmix32(init);
  let d = 1;
  const next32 = (): number => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 12; i++) next32();
  const next = (): number => next32() / 4294967296;
  return {
    seed: seed >>> 0,
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: (items) => {
      if (items.length === 0) throw new Error('pick from an empty array');
      return items[Math.floor(next() * items.length)];
    },
  };
}
