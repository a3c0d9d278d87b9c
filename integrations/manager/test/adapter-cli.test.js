'use strict';
// An adapter that dies before it answers: the headline says what happened to it, for a person
// (killed by which signal, during which command, what to do), the failure is retryable like an
// interruption (where it stopped is unknown), and the tail of its `-v` log stays in details.

const assert = require('node:assert/strict');
const { test } = require('node:test');

const { AdapterCli, killedBy } = require('../lib/adapter-cli');
const errors = require('../lib/errors');
const KubernetesApi = require('../kubernetes-api');

const LOG = "kubectl-adapter: running kubectl get deployment web-9 -o json\\nkubectl-adapter: running kubectl get pods --watch --output-watch-events --show-managed-fields\\n";

/** An adapter that logs like `-v` does, then is killed: by itself, or through a shell wrapper. */
const selfKilled = [process.execPath, '-e', `process.stderr.write("${LOG}"); process.kill(process.pid, 'SIGKILL')`, '--'];
const wrapped = ['/bin/sh', '-c', `printf '%s' "$0" >&2; exit 137`, LOG.replace(/\\n/g, '\n')];

for (const [how, command, code] of [['by a signal', selfKilled, null], ['behind a shell (exit 137)', wrapped, 137]]) {
  test(`an adapter killed ${how} is an InterruptedError that says so, retryable, the log in details`, async () => {
    const cli = new AdapterCli({ command });
    await assert.rejects(cli.run(['create', '--spec', '-'], '{}'), (e) => {
      assert.ok(e instanceof errors.InterruptedError, e.constructor.name);
      assert.equal(e.type, 'Interrupted');
      assert.equal(e.retryable, true);
      assert.equal(e.exitCode, code);
      assert.match(e.message, /^the adapter was killed by signal 9 \(SIGKILL\) during create, before it answered; /);
      assert.doesNotMatch(e.message, /kubectl|watch-events/);
      assert.equal(e.details.signal, 'SIGKILL');
      assert.match(e.details.log, /--output-watch-events --show-managed-fields$/);
      return true;
    });
  });
}

test('a first create whose adapter was killed keeps the provider ID and deletes nothing', async () => {
  const api = new KubernetesApi({ id: 1, name: 'k8s-1', kubeNamespace: 'apps' }, { command: selfKilled });
  await assert.rejects(
    api.createLxc('k8s-1', { hostname: 'web-9', image: 'nginx:1.27', cores: 1, memory: 512, containerId: 9 }),
    (e) => e instanceof errors.InterruptedError && e.orphanProviderId === 'apps/web-9' && e.cleanup === undefined,
  );
});

test('an adapter that exits without JSON and without a signal stays an InternalError, its log in details', async () => {
  const cli = new AdapterCli({ command: [process.execPath, '-e', `process.stderr.write("${LOG}"); process.exit(3)`, '--'] });
  await assert.rejects(cli.run(['status', 'apps/web-9']), (e) => e instanceof errors.InternalError
    && e.message === 'kubectl-adapter status printed no JSON (exit 3)' && /show-managed-fields/.test(e.details.log));
});

test('killedBy reads a signal from Node or from a shell\'s 128 + N, and nothing from an ordinary exit', () => {
  assert.deepEqual(killedBy(null, 'SIGKILL'), { name: 'SIGKILL', number: 9 });
  assert.deepEqual(killedBy(143, null), { name: 'SIGTERM', number: 15 });
  assert.equal(killedBy(1, null), null);
  assert.equal(killedBy(128, null), null);
  assert.equal(killedBy(0, null), null);
});
