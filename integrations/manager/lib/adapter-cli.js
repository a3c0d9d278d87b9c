'use strict';
/**
 * The one place that spawns `kubectl-adapter`: argv as a list (never a shell string), the
 * spec on stdin (never on the command line), one JSON document parsed from stdout, failures
 * turned into typed errors. stderr (logs, rollout progress) is kept only for messages.
 */

const { spawn } = require('node:child_process');
const os = require('node:os');
const { ConfigurationError, EXIT_CODES, InternalError, InterruptedError, OutputLostError, WaitTimeoutError, fromCliError } = require('./errors');

const DEFAULT_PROCESS_TIMEOUT_MS = 15 * 60 * 1000;
const KILL_GRACE_MS = 10 * 1000;
/** The adapter never started: it cannot have written anything (docs/cli.md's `writeSent`). */
const NOTHING_RAN = Object.freeze({ writeSent: false });

class AdapterCli {
  /**
   * @param {object} options
   * @param {string|string[]} [options.command] executable, or an argv prefix such as
   *   ['/usr/bin/python3', '-m', 'kubectl_adapter']; default `kubectl-adapter`
   * @param {string[]} [options.globalArgs] flags placed before every command
   * @param {number} [options.processTimeoutMs] last-resort bound on one adapter process (the
   *   adapter bounds its own waits with --timeout; this only guards against a hung process)
   * @param {number} [options.killGraceMs] how long the adapter gets after SIGTERM (it kills
   *   kubectl's process group and prints its error document) before SIGKILL
   */
  constructor({
    command = 'kubectl-adapter',
    globalArgs = [],
    processTimeoutMs = DEFAULT_PROCESS_TIMEOUT_MS,
    killGraceMs = KILL_GRACE_MS,
  } = {}) {
    [this.executable, ...this.prefix] = Array.isArray(command) ? command : [command];
    this.globalArgs = globalArgs;
    this.processTimeoutMs = processTimeoutMs;
    this.killGraceMs = killGraceMs;
  }

  /** Run one command; resolve with its JSON document, reject with a typed AdapterError. */
  run(args, stdin) {
    // --provider-ids: every NAME is a stored provider ID, namespace/name, never read as
    // kubectl's deployment/NAME (a namespace may be called "deployment").
    const argv = [...this.prefix, '--provider-ids', ...this.globalArgs, ...args];
    return new Promise((resolve, reject) => {
      let child;
      try {
        child = spawn(this.executable, argv, { stdio: ['pipe', 'pipe', 'pipe'] });
      } catch (e) {
        reject(new ConfigurationError('ConfigurationError', `cannot run ${this.executable}: ${e.message}`, { ...NOTHING_RAN }, 9));
        return;
      }
      let out = '';
      let err = '';
      let spawnError = null;
      let timedOut = false;
      // SIGTERM first: the adapter then kills kubectl's whole process group and still prints
      // its error document; SIGKILL only if it does not end within the grace.
      let killer = null;
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill('SIGTERM');
        killer = setTimeout(() => child.kill('SIGKILL'), this.killGraceMs);
      }, this.processTimeoutMs);
      child.stdout.on('data', (chunk) => { out += chunk; });
      child.stderr.on('data', (chunk) => { err += chunk; });
      // An adapter that exits before reading its stdin closes the pipe; the EPIPE would end
      // Manager's process if unhandled. The 'close' handler reports the failure instead.
      child.stdin.on('error', () => {});
      child.on('error', (e) => { spawnError = e; });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        if (killer) clearTimeout(killer);
        if (spawnError) {
          reject(new ConfigurationError('ConfigurationError', `cannot run ${this.executable}: ${spawnError.message}`, { ...NOTHING_RAN }, 9));
          return;
        }
        if (timedOut) {
          reject(new WaitTimeoutError('Timeout', `kubectl-adapter ${args[0]} did not finish in ${this.processTimeoutMs} ms; killed`, {}, 7));
          return;
        }
        let doc;
        try {
          doc = JSON.parse(out);
        } catch (e) {
          const why = signal ? `signal ${signal}` : `exit ${code}`;
          if (code === EXIT_CODES.OutputFailed) {
            // The command finished; only its answer was lost on the way (docs/cli.md, exit 11).
            reject(new OutputLostError('OutputFailed', `kubectl-adapter ${args[0]} finished but its document was lost (${why}): read its status: ${err.trim().slice(-500)}`, {}, code));
            return;
          }
          const killed = killedBy(code, signal);
          if (killed) {
            // Ended from outside before it could answer (an OOM kill, a `kill -9`, a job runner
            // stopping): where it stopped is unknown, so retryable like Interrupted; the `-v`
            // log's tail stays in details for whoever reads the job log, not in the headline.
            reject(new InterruptedError('Interrupted', `the adapter was killed by signal ${killed.number} (${killed.name}) during ${args[0]}, before it answered; `
              + 'it may have stopped anywhere: read the status, then retry', { signal: killed.name, log: err.trim().slice(-500) }, code));
            return;
          }
          reject(new InternalError('InternalError', `kubectl-adapter ${args[0]} printed no JSON (${why})`, { log: err.trim().slice(-500) }, code));
          return;
        }
        const failure = doc !== null && typeof doc === 'object' && doc.error;
        // `check` prints its document whatever it found and exits non-zero when ok is false:
        // the document (with each failed check named) is the answer.
        if (!failure && (code === 0 || args[0] === 'check')) resolve(doc);
        else reject(fromCliError(failure || {}, code));
      });
      child.stdin.end(stdin || '');
    });
  }
}

/**
 * The signal that ended a process which printed nothing: Node's `signal`, or a shell wrapper's
 * exit 128 + N (137 for SIGKILL). null for an ordinary exit.
 */
function killedBy(code, signal) {
  const byNumber = Object.entries(os.constants.signals);
  if (signal) {
    const found = byNumber.find(([name]) => name === signal);
    return { name: signal, number: found ? found[1] : '?' };
  }
  if (typeof code === 'number' && code > 128 && code < 128 + 65) {
    const found = byNumber.find(([, number]) => number === code - 128);
    if (found) return { name: found[0], number: code - 128 };
  }
  return null;
}

module.exports = { AdapterCli, killedBy };
