'use strict';
// The error table: every CLI error type and exit code (docs/cli.md) becomes a class Manager can
// branch on, and `retryable` says whether running the same call later can help.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const errors = require('../lib/errors');

const TABLE = [
  // [type, exit code, details, class, retryable]
  ['InternalError', 1, {}, errors.InternalError, false],
  ['InvalidInput', 2, { field: 'image' }, errors.InvalidInputError, false],
  ['InvalidProviderId', 2, { providerId: 'x' }, errors.InvalidProviderIdError, false],
  ['NotFound', 3, {}, errors.NotFoundError, false],
  ['Unauthorized', 4, {}, errors.UnauthorizedError, false],
  ['Forbidden', 5, { command: 'kubectl delete ...' }, errors.ForbiddenError, false],
  ['Conflict', 6, { command: 'kubectl apply ...', stderr: 'Error from server (Conflict)' }, errors.ApiConflictError, true],
  ['Conflict', 6, { providerId: 'ns/web', expectedContainerId: '1', containerId: '2' }, errors.OwnershipConflictError, false],
  ['Conflict', 6, { providerId: 'ns/web', expectedNodeId: '7', nodeId: '8' }, errors.OwnershipConflictError, false],
  ['Conflict', 6, { providerId: 'ns/web', labels: {} }, errors.OwnershipConflictError, false],
  ['Timeout', 7, {}, errors.WaitTimeoutError, true],
  ['Unavailable', 8, {}, errors.UnavailableError, true],
  ['ConfigurationError', 9, {}, errors.ConfigurationError, false],
  // #460's configuration failures, told apart by the adapter's details.reason.
  ['ConfigurationError', 9, { reason: 'kubeconfig missing', kubeconfig: '--kubeconfig /k' }, errors.KubeconfigNotFoundError, false],
  ['ConfigurationError', 9, { reason: 'no kubeconfig: kubectl fell back to localhost:8080' }, errors.KubeconfigNotFoundError, false],
  ['ConfigurationError', 9, { reason: 'invalid kubeconfig' }, errors.InvalidKubeconfigError, false],
  ['ConfigurationError', 9, { reason: 'no current context in the kubeconfig' }, errors.InvalidKubeconfigError, false],
  ['ConfigurationError', 9, { reason: 'invalid client certificate or key in the kubeconfig' }, errors.InvalidKubeconfigError, false],
  ['ConfigurationError', 9, { reason: 'unknown context' }, errors.ContextNotFoundError, false],
  ['ConfigurationError', 9, { reason: 'TLS verification failed' }, errors.TlsVerificationError, false],
  ['ConfigurationError', 9, { reason: 'kubectl not found' }, errors.ConfigurationError, false],
  ['RolloutFailed', 10, { pods: [] }, errors.RolloutFailedError, false],
  ['OutputFailed', 11, {}, errors.OutputLostError, true],
  ['Interrupted', 130, { signal: 'SIGINT' }, errors.InterruptedError, true],
  ['Interrupted', 143, { signal: 'SIGTERM' }, errors.InterruptedError, true],
  ['Interrupted', 129, { signal: 'SIGHUP' }, errors.InterruptedError, true],
  // A create that lost its name to another container's create: kubectl failed (details carry
  // the command), yet retrying cannot help.
  ['Conflict', 6, { command: 'kubectl apply ...', reason: "the Deployment's selector holds another container's ID" }, errors.OwnershipConflictError, false],
  ['SomethingNew', 1, {}, errors.InternalError, false],
];

for (const [type, code, details, Class, retryable] of TABLE) {
  test(`${type} exit ${code} ${JSON.stringify(details)} -> ${Class.name}`, () => {
    const error = errors.fromCliError({ type, message: 'why', details }, code);
    assert.ok(error instanceof Class, error.constructor.name);
    assert.ok(error instanceof errors.AdapterError);
    assert.ok(error instanceof (retryable ? errors.RetryableError : errors.PermanentError));
    assert.equal(error.retryable, retryable);
    assert.equal(error.type, type);
    assert.equal(error.exitCode, code);
    assert.equal(error.message, 'why');
    assert.deepEqual(error.details, details);
    assert.equal(error.name, Class.name);
  });
}

test('every error type of the CLI contract has an exit code and a class', () => {
  for (const [type, code] of Object.entries(errors.EXIT_CODES)) {
    const error = errors.fromCliError({ type, message: 'm', details: {} }, code);
    assert.notEqual(error.constructor, errors.AdapterError, type);
    if (type !== 'InternalError' && type !== 'Conflict') assert.notEqual(error.constructor, errors.InternalError, type);
  }
});

test('a missing error document still gives a typed error that says the exit code', () => {
  const error = errors.fromCliError(undefined, 8);
  assert.ok(error instanceof errors.InternalError);
  assert.match(error.message, /exited with 8/);
});

test('an unknown snapshot turns back into the error that made it unknown', () => {
  const forbidden = errors.fromUnknownSnapshot({ providerId: 'ns/web', status: 'unknown', message: 'Forbidden: deployments.apps "web" is forbidden' });
  assert.ok(forbidden instanceof errors.ForbiddenError);
  assert.equal(forbidden.exitCode, 5);
  assert.equal(forbidden.message, 'deployments.apps "web" is forbidden');
  assert.deepEqual(forbidden.details, { providerId: 'ns/web' });
  const down = errors.fromUnknownSnapshot({ providerId: 'ns/web', status: 'unknown', message: 'Unavailable: connection refused' });
  assert.ok(down instanceof errors.UnavailableError);
  assert.equal(down.retryable, true);
  const odd = errors.fromUnknownSnapshot({ providerId: 'ns/web', status: 'unknown', message: 'no prefix here' });
  assert.ok(odd instanceof errors.UnavailableError);
  assert.equal(odd.message, 'no prefix here');
});

/** A Timeout's details as the adapter's diagnostics write them: one Pod of the rollout. */
function timeoutWith(phase, containers, terminating = false) {
  return errors.fromCliError({ type: 'Timeout', message: 'rollout not complete after 6s', details: { failing: [], pods: [{ name: 'web-1-abc', phase, terminating, containers }] } }, 7);
}

test('a Timeout is permanent only when its Pod started and never became ready', () => {
  const neverReady = timeoutWith('Running', [{ name: 'main', state: 'running', ready: false, restartCount: 0 }]);
  assert.ok(neverReady instanceof errors.PodNotReadyError && neverReady instanceof errors.PermanentError);
  assert.equal(neverReady.type, 'Timeout');
  assert.equal(neverReady.retryable, false);
  for (const starting of [
    timeoutWith('Pending', [{ name: 'main', state: 'waiting', ready: false, reason: 'ContainerCreating' }]),
    timeoutWith('Pending', []),
    timeoutWith('Running', [{ name: 'main', state: 'running', ready: false }], true),
    timeoutWith('Running', [{ name: 'init', state: 'waiting', ready: false }, { name: 'main', state: 'running', ready: false }]),
    errors.fromCliError({ type: 'Timeout', message: 'kubectl-adapter create did not finish', details: {} }, 7),
  ]) {
    assert.ok(starting instanceof errors.WaitTimeoutError, String(starting.constructor.name));
    assert.equal(starting.retryable, true);
  }
});

test('toPlain: what a form shows of a failure, without kubectl\'s command line or stderr', () => {
  const details = { reason: 'TLS verification failed', command: 'kubectl --kubeconfig /k get nodes', stderr: 'token: s3cr3t' };
  const tls = errors.fromCliError({ type: 'ConfigurationError', message: 'x509: certificate signed by unknown authority', details }, 9);
  assert.deepEqual(errors.toPlain(tls), {
    name: 'TlsVerificationError', type: 'ConfigurationError', reason: 'TLS verification failed',
    message: 'x509: certificate signed by unknown authority', retryable: false,
  });
  assert.equal(errors.toPlain(errors.fromCliError({ type: 'Unavailable', message: 'refused' }, 8)).retryable, true);
  assert.deepEqual(errors.toPlain(new TypeError('boom')), { name: 'Error', type: null, reason: null, message: 'boom', retryable: false });
});
