// The suite's own config (vitest.config.ts) with bench/file-cpu-setup.mjs in every project: for
// bench/suite-files.mjs only.
import suite from '../vitest.config.ts';

const setup = new URL('./file-cpu-setup.mjs', import.meta.url).pathname;
export default {
  ...suite,
  test: { ...suite.test, projects: suite.test.projects.map((p) => ({ ...p, test: { ...p.test, setupFiles: [setup] } })) },
};
