// The order test files start in: the longest first, whatever project they belong to, so that two
// workers finish together. Vitest's own order puts every file of one project before the next
// project's (by name), so the property project (one file, the longest of the run) started last
// and ran alone at the end. Durations come from vitest's cache of earlier runs; a file never run
// (a clean clone) goes by its size, as vitest's own fallback does (property.test.ts is the
// largest file too). With --sequence.shuffle (vitest gives a custom sequencer no shuffle of its
// own), files go in a random order from the run's seed instead: the check that a file does not
// depend on what ran before it in a shared process (docs/performance-suite.md, "The test suite").
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const { shuffle, seed } = this.ctx.config.sequence;
    if (shuffle) return shuffled(files, seed);
    const cache = this.ctx.cache;
    const root = this.ctx.config.root;
    const weight = (spec: TestSpecification): [number, number] => {
      const key = `${spec.project.name}:${relative(root, spec.moduleId)}`; // vitest's own cache key
      const last = cache.getFileTestResults(key);
      // Never run (or failed last time): first, as vitest does, so a failure shows early.
      if (!last || last.failed) return [0, -(cache.getFileStats(key)?.size ?? 0)];
      return [1, -last.duration];
    };
    const weights = new Map(files.map((f) => [f, weight(f)]));
    return [...files].sort((a, b) => {
      const [ka, wa] = weights.get(a)!;
      const [kb, wb] = weights.get(b)!;
      return ka - kb || wa - wb;
    });
  }
}

/** A Fisher-Yates shuffle driven by mulberry32 from `seed`: the same seed, the same order. */
function shuffled<T>(items: T[], seed: number): T[] {
  let state = seed >>> 0;
  const random = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
