// The programs some tests drive for real (a terminal, shells). A test that needs one and does
// not find it is skipped; test/global-setup.ts names what was missing after the run, and fails
// the run instead where every test must run (SVC_TEST_REQUIRE_TOOLS=1, set by .ci/run).
import { spawnSync } from 'node:child_process';

/** What each tool is for, and the Debian package that has it. */
export const TEST_TOOLS = {
  bash: { for: 'bash completion tests', debian: 'bash' },
  zsh: { for: 'zsh completion tests', debian: 'zsh' },
  fish: { for: 'fish completion tests', debian: 'fish' },
  tmux: { for: 'real-terminal tests (prompts, review screen, tables at 80 columns)', debian: 'tmux' },
  script: { for: 'pseudo-terminal tests (spinners, badges, pretty JSON)', debian: 'bsdutils' },
  jq: { for: 'README cron-example tests (the script run as written)', debian: 'jq' },
  groff: { for: 'man page tests (rendered with warnings on)', debian: 'groff-base' },
  man: { for: 'man page tests (`man -l man/svc.1`)', debian: 'man-db' },
  'dbus-run-session': { for: 'OS keyring tests (a private session bus)', debian: 'dbus' },
  'gnome-keyring-daemon': { for: 'OS keyring tests (a real Secret Service)', debian: 'gnome-keyring' },
  'secret-tool': { for: 'OS keyring tests (what the keyring holds)', debian: 'libsecret-tools' },
  faketime: { for: "clock-jump tests (svc run with this machine's clock moved back or ahead)", debian: 'faketime' },
} as const;
export type TestTool = keyof typeof TEST_TOOLS;

const found = new Map<TestTool, boolean>();

/** Whether `tool` is on the PATH (asked once per process). */
export function hasTool(tool: TestTool): boolean {
  let has = found.get(tool);
  if (has === undefined) {
    has = spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status === 0;
    found.set(tool, has);
  }
  return has;
}

export function missingTools(): TestTool[] {
  return (Object.keys(TEST_TOOLS) as TestTool[]).filter((t) => !hasTool(t));
}
