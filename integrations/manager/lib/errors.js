'use strict';
/**
 * Typed failures of the Kubernetes node client, so Manager's jobs and routes can decide
 * between "retry the same call later" and "give up and tell a person".
 *
 *   AdapterError                       base: .type .exitCode .details .retryable
 *   ├── RetryableError                 the same call may succeed later; nothing to fix
 *   │   ├── UnavailableError           Unavailable (8): API unreachable, 5xx, 429, request timeout
 *   │   ├── WaitTimeoutError           Timeout (7): a wait ran out before its Pod started (pull,
 *   │   │                              scheduling, API trouble) or a kubectl process ran out
 *   │   ├── ApiConflictError           Conflict (6) from the API server (HTTP 409, apply conflict)
 *   │   ├── InterruptedError           Interrupted (128 + signal: 129, 130, 143): stopped by a signal
 *   │   └── OutputLostError            OutputFailed (11): the command finished, but its document
 *   │                                  never reached the client (its stdout failed): read status
 *   └── PermanentError                 retrying changes nothing: the input, the node or the image
 *       ├── InvalidInputError          InvalidInput (2): bad spec or usage (a caller bug)
 *       │   └── InvalidProviderIdError InvalidProviderId (2): not `namespace/name`
 *       ├── NotFoundError              NotFound (3): Deployment or namespace does not exist
 *       ├── UnauthorizedError          Unauthorized (4): node credentials rejected
 *       ├── ForbiddenError             Forbidden (5): RBAC denies a call (run `check`)
 *       ├── OwnershipConflictError     Conflict (6): the Deployment is another container's/node's
 *       ├── ConfigurationError         ConfigurationError (9): adapter or kubectl missing, or
 *       │   │                          the node's kubeconfig wrong; `details.reason` says which:
 *       │   ├── KubeconfigNotFoundError    no kubeconfig file at kubeconfigPath (or none at all)
 *       │   ├── InvalidKubeconfigError     a file that is not a usable kubeconfig (YAML, no
 *       │   │                              current-context, client certificate or key not PEM)
 *       │   ├── ContextNotFoundError       kubeContext is not a context of the kubeconfig
 *       │   └── TlsVerificationError       the API server's certificate fails verification
 *       │                                  against the kubeconfig's CA (unknown authority,
 *       │                                  another host name, expired)
 *       ├── RolloutFailedError         RolloutFailed (10): the Pod will not become ready; .message says why
 *       ├── PodNotReadyError           Timeout (7): the Pod started but was never ready within the
 *       │                              node's wait bound (the same spec would wait again)
 *       └── InternalError              InternalError (1) or output that is not the CLI contract
 *
 * The CLI's `type` and exit code are the contract (docs/cli.md); `fromCliError` is the one
 * table translating them.
 */

class AdapterError extends Error {
  constructor(type, message, details, exitCode) {
    super(message);
    this.name = this.constructor.name;
    this.type = type;
    this.details = details || {};
    this.exitCode = exitCode;
  }

  /** True when Manager may run the same call again later (a job retry, a "try again" button). */
  get retryable() {
    return this instanceof RetryableError;
  }
}

class RetryableError extends AdapterError {}
class UnavailableError extends RetryableError {}
class WaitTimeoutError extends RetryableError {}
class ApiConflictError extends RetryableError {}
class InterruptedError extends RetryableError {}
class OutputLostError extends RetryableError {}

class PermanentError extends AdapterError {}
class InvalidInputError extends PermanentError {}
class InvalidProviderIdError extends InvalidInputError {}
class NotFoundError extends PermanentError {}
class UnauthorizedError extends PermanentError {}
class ForbiddenError extends PermanentError {}
class OwnershipConflictError extends PermanentError {}
class ConfigurationError extends PermanentError {}
class KubeconfigNotFoundError extends ConfigurationError {}
class InvalidKubeconfigError extends ConfigurationError {}
class ContextNotFoundError extends ConfigurationError {}
class TlsVerificationError extends ConfigurationError {}
class RolloutFailedError extends PermanentError {}
class PodNotReadyError extends PermanentError {}
class InternalError extends PermanentError {}

const BY_TYPE = {
  InvalidInput: InvalidInputError,
  InvalidProviderId: InvalidProviderIdError,
  NotFound: NotFoundError,
  Unauthorized: UnauthorizedError,
  Forbidden: ForbiddenError,
  Timeout: WaitTimeoutError,
  Unavailable: UnavailableError,
  ConfigurationError,
  RolloutFailed: RolloutFailedError,
  OutputFailed: OutputLostError,
  InternalError,
};

/**
 * A create that lost the race for its name to another container's create: the API refuses the
 * apply because the Deployment's immutable selector holds the winner's container ID. The
 * adapter's error table names this reason; retrying cannot help.
 */
const SELECTOR_HELD_BY_ANOTHER_CONTAINER = "the Deployment's selector holds another container's ID";

/**
 * The adapter raises Conflict both for an API-server 409 (kubectl failed: details carry the
 * kubectl `command`) and for its own ownership guard (details name the expected container or
 * node, or the labels of a Deployment Manager does not own). Only the first can pass on retry.
 */
function isOwnershipConflict(details) {
  if (details.reason === SELECTOR_HELD_BY_ANOTHER_CONTAINER) return true;
  return !details.command && ('expectedContainerId' in details || 'expectedNodeId' in details || 'labels' in details);
}

/**
 * A wait's Timeout whose diagnostics show a Pod whose containers all started and were still
 * not ready at the bound: its readiness never came, and retrying the same spec waits again
 * for the same result. A Timeout with a Pod still pending (image pull, scheduling), or with no
 * Pod seen at all, may pass on a later try.
 */
function podStartedButNeverReady(details) {
  const pods = Array.isArray(details.pods) ? details.pods : [];
  return pods.some((pod) => !pod.terminating && pod.phase === 'Running'
    && Array.isArray(pod.containers) && pod.containers.length > 0
    && pod.containers.every((c) => c.state === 'running')
    && pod.containers.some((c) => !c.ready));
}

/**
 * The adapter's `details.reason` for each ConfigurationError it finds in kubectl's answer
 * (kubectl_adapter/kubectl/kubectl_errors.py): which part of the node's configuration is wrong.
 */
const CONFIGURATION_BY_REASON = {
  'kubeconfig missing': KubeconfigNotFoundError,
  'no kubeconfig: kubectl fell back to localhost:8080': KubeconfigNotFoundError,
  'invalid kubeconfig': InvalidKubeconfigError,
  'invalid kubeconfig or context': InvalidKubeconfigError,
  'no current context in the kubeconfig': InvalidKubeconfigError,
  'invalid client certificate or key in the kubeconfig': InvalidKubeconfigError,
  'unknown context': ContextNotFoundError,
  'TLS verification failed': TlsVerificationError,
};

/** Build the typed error for one `{"error": {...}}` document and the CLI's exit code. */
function fromCliError(error, exitCode) {
  const type = (error && error.type) || 'InternalError';
  const message = (error && error.message) || `kubectl-adapter exited with ${exitCode}`;
  const details = (error && error.details) || {};
  if (type === 'Interrupted') return new InterruptedError(type, message, details, exitCode);
  if (type === 'Timeout' && podStartedButNeverReady(details)) {
    return new PodNotReadyError(type, message, details, exitCode);
  }
  if (type === 'Conflict') {
    const Class = isOwnershipConflict(details) ? OwnershipConflictError : ApiConflictError;
    return new Class(type, message, details, exitCode);
  }
  if (type === 'ConfigurationError' && CONFIGURATION_BY_REASON[details.reason]) {
    return new CONFIGURATION_BY_REASON[details.reason](type, message, details, exitCode);
  }
  const Class = BY_TYPE[type] || InternalError;
  return new Class(type, message, details, exitCode);
}

/**
 * A typed failure as plain data for an HTTP answer or a form (Manager's connection test):
 * the class name, CLI type, the adapter's reason and its message. The adapter redacts
 * tokens, keys and certificates from messages; details (kubectl's command line, stderr) are
 * left out all the same, and an error that is not an AdapterError says only its message.
 */
function toPlain(error) {
  if (!(error instanceof AdapterError)) return { name: 'Error', type: null, reason: null, message: String(error && error.message), retryable: false };
  return {
    name: error.name,
    type: error.type,
    reason: error.details.reason || null,
    message: error.message,
    retryable: error.retryable,
  };
}

/** The CLI's exit code for each error type (docs/cli.md), for errors built from a snapshot. */
const EXIT_CODES = {
  InternalError: 1, InvalidInput: 2, InvalidProviderId: 2, NotFound: 3, Unauthorized: 4,
  Forbidden: 5, Conflict: 6, Timeout: 7, Unavailable: 8, ConfigurationError: 9, RolloutFailed: 10,
  OutputFailed: 11, Interrupted: 130,
};

/**
 * `status` answers `unknown` (exit 0) when the API cannot answer, with the reason as
 * "Type: message". Callers that need a definite answer turn it back into the typed error.
 */
function fromUnknownSnapshot(snapshot) {
  const match = /^([A-Za-z]+): ([\s\S]*)$/.exec(snapshot.message || '');
  const type = match && EXIT_CODES[match[1]] ? match[1] : 'Unavailable';
  const message = match ? match[2] : snapshot.message || 'status unknown';
  return fromCliError({ type, message, details: { providerId: snapshot.providerId } }, EXIT_CODES[type]);
}

/** A mistake of the caller found before anything is spawned (same contract as the CLI's). */
function invalidInput(message, details) {
  return new InvalidInputError('InvalidInput', message, details, 2);
}

module.exports = {
  AdapterError,
  RetryableError,
  UnavailableError,
  WaitTimeoutError,
  ApiConflictError,
  InterruptedError,
  OutputLostError,
  PermanentError,
  InvalidInputError,
  InvalidProviderIdError,
  NotFoundError,
  UnauthorizedError,
  ForbiddenError,
  OwnershipConflictError,
  ConfigurationError,
  KubeconfigNotFoundError,
  InvalidKubeconfigError,
  ContextNotFoundError,
  TlsVerificationError,
  RolloutFailedError,
  PodNotReadyError,
  InternalError,
  EXIT_CODES,
  toPlain,
  fromCliError,
  fromUnknownSnapshot,
  invalidInput,
};
