// A small driver for testing in a real terminal: runs one command in a detached tmux session of
// a fixed size on a private server socket, types into it, and reads the screen back.
// Every session is killed by kill() (or killAllTmux() in an afterEach/afterAll), and at exit.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hasTool } from './tools.js';

export interface TmuxOptions {
  /** Environment of the command (and of the tmux server). Nothing else is inherited. */
  env?: Record<string, string | undefined>;
  cwd?: string;
  width?: number;
  height?: number;
  /**
   * Keep what the command writes to the terminal, byte for byte (tmux pipe-pane), for output():
   * the command starts only once the recording is on.
   */
  record?: boolean;
}

export interface TmuxSession {
  readonly socket: string;
  readonly socketPath: string;
  /** Sends tmux key names (`Enter`, `C-c`, `Tab`, `Up`) or literal text with sendText. */
  sendKeys(...keys: string[]): Promise<void>;
  /** Types text literally (no key-name lookup). */
  sendText(text: string): Promise<void>;
  /**
   * The screen and its scrollback (tmux scrolls a line off when it notes that the command
   * ended), lines joined with "\n", trailing blanks trimmed, tmux's own "Pane is dead" left out.
   * With `escapes`, colours and attributes stay in as the escape sequences tmux writes for them
   * (capture-pane -e: SGR codes, e.g. `\x1b[31m` red, `\x1b[2m` dim, `\x1b[39m` default colour).
   * With `rows`, the terminal's rows as they are: a line the terminal wrapped is not joined back.
   */
  capture(opts?: { escapes?: boolean; rows?: boolean }): Promise<string>;
  /** With `record`: every byte the command wrote so far (escape sequences, `\r`, redraws). */
  output(): string;
  /** Polls the screen until it shows the text or matches the pattern; returns the screen. */
  waitFor(pattern: string | RegExp, timeoutMs?: number): Promise<string>;
  /** Waits for the command to end and returns its exit status (the pane stays readable). */
  waitForExit(timeoutMs?: number): Promise<number>;
  kill(): Promise<void>;
}

const live = new Set<TmuxSession>();
let counter = 0;

function tmux(socket: string, args: string[], env?: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('tmux', ['-L', socket, ...args], { env: env ?? cleanEnv({}), timeout: 10_000 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`tmux ${args[0]} failed: ${stderr || err.message}`));
      else resolve(stdout);
    });
  });
}

function cleanEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * Starts `command` (argv, run through /bin/sh with each word quoted) in a new detached tmux
 * session. The environment is exactly `opts.env` plus TERM (default xterm-256color); CI, TMUX
 * and the like are not inherited, so a program sees a plain interactive terminal.
 */
export async function startTmux(command: readonly string[], opts: TmuxOptions = {}): Promise<TmuxSession> {
  const socket = `svc-test-${process.pid}-${Date.now().toString(36)}-${counter++}`;
  const dir = mkdtempSync(join(tmpdir(), 'svc-tmux-'));
  const conf = join(dir, 'tmux.conf');
  // No status line (the pane is the whole window), keep the pane after the command ends so
  // its exit status and last screen can be read, and no escape-key delay.
  writeFileSync(conf, ['set -g status off', 'set -g remain-on-exit on', 'set -g escape-time 0', 'set -g history-limit 2000', ''].join('\n'));
  // No update check from a test's terminal (it would ask the public registry).
  const env = cleanEnv({ TERM: 'xterm-256color', SVC_NO_UPDATE_NOTIFIER: '1', ...opts.env });
  delete env.TMUX;
  const width = opts.width ?? 120;
  const height = opts.height ?? 40;
  // The exit status goes through a file: tmux 3.3 sometimes leaves a fast-exiting pane process
  // unreaped (a zombie), and then never reports #{pane_dead_status}.
  const exitFile = join(dir, 'exit');
  // Recording: the command waits on a pipe until pipe-pane is on, so its first byte is kept too.
  const gate = join(dir, 'gate');
  const recorded = join(dir, 'output');
  if (opts.record) execFileSync('mkfifo', [gate]);
  const shellCommand = `${opts.record ? `read _ < ${quote(gate)}; ` : ''}${command.map(quote).join(' ')}; s=$?; echo $s > ${quote(`${exitFile}.tmp`)}; mv ${quote(`${exitFile}.tmp`)} ${quote(exitFile)}`;
  await tmux(
    socket,
    ['-f', conf, 'new-session', '-d', '-s', 'test', '-x', String(width), '-y', String(height), ...(opts.cwd ? ['-c', opts.cwd] : []), shellCommand],
    env,
  );
  const target = 'test:0.0';
  // kill-server leaves the socket file behind: remember it to remove it.
  const socketPath = (await tmux(socket, ['display-message', '-p', '#{socket_path}'])).trim();
  let killed = false;
  if (opts.record) {
    await tmux(socket, ['pipe-pane', '-O', '-t', target, `cat >> ${quote(recorded)}`]);
    await writeFile(gate, 'go\n'); // opened once the shell reads it (a pipe has no content until then)
  }

  const session: TmuxSession = {
    socket,
    socketPath,
    async sendKeys(...keys) {
      await tmux(socket, ['send-keys', '-t', target, ...keys]);
    },
    async sendText(text) {
      await tmux(socket, ['send-keys', '-t', target, '-l', text]);
    },
    async capture(opts = {}) {
      const out = await tmux(socket, ['capture-pane', '-p', ...(opts.rows ? [] : ['-J']), ...(opts.escapes ? ['-e'] : []), '-S', '-', '-t', target]);
      return out
        .split('\n')
        .filter((l) => !l.replace(/\x1b\[[0-9;]*m/g, '').startsWith('Pane is dead'))
        .map((l) => l.trimEnd())
        .join('\n')
        .trimEnd();
    },
    output() {
      return existsSync(recorded) ? readFileSync(recorded, 'utf8') : '';
    },
    async waitFor(pattern, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      let screen = '';
      for (;;) {
        screen = await session.capture();
        if (typeof pattern === 'string' ? screen.includes(pattern) : pattern.test(screen)) return screen;
        if (Date.now() > deadline) {
          throw new Error(`timed out after ${timeoutMs} ms waiting for ${String(pattern)}; the screen shows:\n${screen}`);
        }
        await sleep(50);
      }
    },
    async waitForExit(timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (existsSync(exitFile)) return Number(readFileSync(exitFile, 'utf8').trim());
        // Killed together with the wrapping shell (no file): ask tmux.
        const [dead, status, signal] = (
          await tmux(socket, ['display-message', '-p', '-t', target, '#{pane_dead}:#{pane_dead_status}:#{pane_dead_signal}'])
        ).trim().split(':');
        if (dead === '1' && !existsSync(exitFile)) {
          if (signal) return 128 + Number(signal);
          if (status && Number(status) !== 0) return Number(status);
        }
        if (Date.now() > deadline) {
          throw new Error(`timed out after ${timeoutMs} ms waiting for the command to exit; the screen shows:\n${await session.capture()}`);
        }
        await sleep(50);
      }
    },
    async kill() {
      if (killed) return;
      killed = true;
      live.delete(session);
      await tmux(socket, ['kill-server']).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
      if (socketPath) rmSync(socketPath, { force: true });
    },
  };
  live.add(session);
  return session;
}

/** Kills every session this process started (for afterEach / afterAll). */
export async function killAllTmux(): Promise<void> {
  await Promise.all([...live].map((s) => s.kill()));
}

process.on('exit', () => {
  for (const s of live) {
    try {
      execFileSync('tmux', ['-L', s.socket, 'kill-server'], { stdio: 'ignore', timeout: 5_000 });
    } catch {
      // already gone
    }
    if (s.socketPath) rmSync(s.socketPath, { force: true });
  }
});

/** Whether tmux is installed (tests skip with a reason otherwise). */
export function hasTmux(): boolean {
  return hasTool('tmux');
}
