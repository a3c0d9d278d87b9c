import { useMutation } from '@tanstack/react-query';
import type { UseFormRegisterReturn } from 'react-hook-form';
import { z } from 'zod';
import { Alert, AlertDescription, Badge, Button, Input } from '@mieweb/ui';
import { api, ApiError } from '@/lib/api';
import type { RoleFix } from '@/lib/types';
import { MissingPermissions } from '@/components/nodes/KubernetesNode';

/**
 * #459's fields of a Kubernetes node, for the node form's schema. A form sends strings
 * (`waitTimeout: "120"`); the route checks them again and stores whole seconds.
 */
export const kubernetesFields = {
  kubeconfigPath: z
    .string()
    .optional()
    .refine((v) => !v || v.startsWith('/'), 'An absolute path on the Manager host'),
  kubeContext: z.string().optional(),
  kubeNamespace: z
    .string()
    .optional()
    .refine((v) => !v || /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(v), 'A DNS-1123 label (a-z, 0-9, -)'),
  waitTimeout: z
    .string()
    .optional()
    .refine((v) => !v || (/^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= 86400), 'Whole seconds, 1 to 86400'),
};

type FieldName = keyof typeof kubernetesFields;

/** What POST /nodes/test-connection answers: the client's connectionTest, as is. */
interface ConnectionTest {
  ok: boolean;
  check: {
    serverVersion: string | null;
    namespace: string;
    namespaceExists: boolean | null;
    missingPermissions: string[];
  } | null;
  nodes: { name: string; ready: boolean; internalIp: string | null; externalIp: string | null }[] | null;
  error: { name: string; message: string } | null;
  hints: string[];
  fix: RoleFix | null;
}

/** The one line a connection test comes to, as the nodes list shows it (connectionSummary). */
function headline(t: ConnectionTest): string {
  if (!t.check) return t.error ? `${t.error.name}: ${t.error.message}` : 'The check could not run';
  if (t.check.namespaceExists !== true) {
    return `namespace ${t.check.namespace} ${t.check.namespaceExists === false ? 'does not exist' : 'cannot be read'}`;
  }
  if (t.check.missingPermissions.length) return `missing permissions: ${t.check.missingPermissions.join(', ')}`;
  return `Server ${t.check.serverVersion}, namespace ${t.check.namespace} exists`;
}

/**
 * The node form's Kubernetes part: the kubeconfig path (a file on the Manager host, never
 * its content), context, namespace and wait bound, and "Test connection" for the values as
 * typed (saved or not). `collect` runs the form's schema and hands over its values, so a test
 * is never sent for values the form would refuse to save.
 */
export function KubernetesNodeFields({
  siteId,
  fields,
  errors,
  collect,
}: {
  siteId: string;
  fields: Record<FieldName, UseFormRegisterReturn>;
  errors: Partial<Record<FieldName, { message?: string }>>;
  collect: (send: (values: object) => void) => void;
}) {
  const test = useMutation({
    mutationFn: (values: object) => api.post<ConnectionTest>(`/api/v1/sites/${siteId}/nodes/test-connection`, values),
  });
  const answer = test.data;
  return (
    <>
      <Input
        label="Kubeconfig path"
        placeholder="/etc/manager/kubeconfigs/k8s-1.yaml"
        helperText="A file on the Manager host; empty: kubectl's $KUBECONFIG or ~/.kube/config. Its content is never stored or shown."
        autoComplete="off"
        spellCheck={false}
        error={errors.kubeconfigPath?.message}
        hasError={!!errors.kubeconfigPath}
        {...fields.kubeconfigPath}
      />
      <div className="grid gap-4 sm:grid-cols-3">
        <Input label="Context" placeholder="current-context" spellCheck={false} {...fields.kubeContext} />
        <Input
          label="Namespace"
          placeholder="default"
          spellCheck={false}
          error={errors.kubeNamespace?.message}
          hasError={!!errors.kubeNamespace}
          {...fields.kubeNamespace}
        />
        <Input
          label="Wait timeout (s)"
          placeholder="300"
          inputMode="numeric"
          error={errors.waitTimeout?.message}
          hasError={!!errors.waitTimeout}
          {...fields.waitTimeout}
        />
      </div>
      <div className="flex items-center gap-3">
        <Button type="button" variant="outline" isLoading={test.isPending} onClick={() => collect((v) => test.mutate(v))}>
          Test connection
        </Button>
        {answer?.ok && <Badge variant="success">Connected</Badge>}
      </div>
      {test.error && (
        <Alert variant="danger">
          <AlertDescription>{(test.error as ApiError).message}</AlertDescription>
        </Alert>
      )}
      {answer && (
        <Alert variant={answer.ok ? 'success' : 'danger'} data-testid="connection-test">
          <AlertDescription>
            <div>{headline(answer)}</div>
            {answer.ok && answer.error && <div>Nodes could not be listed: {answer.error.name}: {answer.error.message}</div>}
            {answer.nodes?.map((n) => (
              <div key={n.name} className="font-mono text-xs">
                {n.name}: {n.ready ? 'Ready' : 'NotReady'}, internal IP {n.internalIp || '-'}, external IP {n.externalIp || '-'}
              </div>
            ))}
            <MissingPermissions fix={answer.fix} hints={answer.hints} />
          </AlertDescription>
        </Alert>
      )}
    </>
  );
}
