import { GATEWAY_SETTINGS } from '@commerce/gateway';
import { RELEASE_TIMEOUT_MS } from '@platform/http/service';
import { serverSettings } from '@platform/runtime';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Namespace, Secret, Service } from 'kubernetes-models/v1';
import { imageTagOf, type KubeObject } from './kustomize';

/**
 * What every rendered manifest must pass before it is applied or played: the Kubernetes schema (kubernetes-models,
 * which misses unknown fields), then, once the schema holds, the project's own rules. Each problem is one line naming
 * the object.
 */
export function manifestProblems(objects: readonly KubeObject[]): string[] {
  const schema = objects.flatMap(schemaProblems);
  if (schema.length > 0) return schema;
  return [
    ...deployments(objects).flatMap((deployment) => [
      ...podProblems(deployment),
      ...stopTimingProblems(deployment, objects),
    ]),
    ...objects.filter((o) => o.kind === 'ConfigMap').flatMap(configMapProblems),
    ...companionProblems(objects),
  ];
}

/** A model of kubernetes-models: built from a manifest's object, it checks it against the Kubernetes schema. */
type Model = new (data: never) => { validate(): void };

/** The kinds the system deploys, by apiVersion and kind; anything else is refused. */
const MODELS: Readonly<Record<string, Model>> = {
  'apps/v1 Deployment': Deployment,
  'autoscaling/v2 HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'networking.k8s.io/v1 Ingress': Ingress,
  'policy/v1 PodDisruptionBudget': PodDisruptionBudget,
  'v1 ConfigMap': ConfigMap,
  'v1 Namespace': Namespace,
  'v1 Secret': Secret,
  'v1 Service': Service,
};

const nameOf = (object: KubeObject) => `${object.kind} ${object.metadata.name}`;

function schemaProblems(object: KubeObject): string[] {
  const Model = MODELS[`${object.apiVersion} ${object.kind}`];
  if (!Model) return [`${nameOf(object)}: ${object.apiVersion} ${object.kind} is not a kind this system deploys`];
  try {
    new Model(object as never).validate();
    return [];
  } catch (error) {
    return [`${nameOf(object)}: ${(error as Error).message.split('\n').slice(0, 3).join('; ')}`];
  }
}

interface Probe {
  httpGet?: { path: string };
  tcpSocket?: unknown;
  periodSeconds?: number;
  timeoutSeconds?: number;
  failureThreshold?: number;
}

interface Container {
  name: string;
  image: string;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  securityContext?: {
    runAsNonRoot?: boolean;
    runAsUser?: number;
    allowPrivilegeEscalation?: boolean;
    privileged?: boolean;
    readOnlyRootFilesystem?: boolean;
    capabilities?: { drop?: string[] };
  };
  env?: { name: string; value?: string }[];
  envFrom?: { configMapRef?: { name: string } }[];
}

interface DeploymentObject extends KubeObject {
  spec: {
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata: { labels: Record<string, string> };
      spec: {
        terminationGracePeriodSeconds?: number;
        securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
        containers: Container[];
        initContainers?: Container[];
        volumes?: { name: string; secret?: { defaultMode?: number } }[];
      };
    };
  };
}

const deployments = (objects: readonly KubeObject[]) =>
  objects.filter((o): o is DeploymentObject => o.kind === 'Deployment');

/** Limits, probes, a non-root and read-only container that cannot gain privileges, a real tag, private secrets. */
function podProblems(deployment: DeploymentObject): string[] {
  const pod = deployment.spec.template.spec;
  const problems: string[] = [];
  for (const container of [...pod.containers, ...(pod.initContainers ?? [])]) {
    const say = (problem: string) => problems.push(`${nameOf(deployment)}, container ${container.name}: ${problem}`);
    for (const kind of ['requests', 'limits'] as const)
      for (const resource of ['cpu', 'memory'])
        if (!container.resources?.[kind]?.[resource]) say(`no ${resource} ${kind.replace(/s$/, '')}`);
    if (!pod.initContainers?.includes(container))
      for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe'] as const)
        if (!container[probe]) say(`no ${probe}`);
    const security = container.securityContext ?? {};
    const nonRoot = security.runAsNonRoot ?? pod.securityContext?.runAsNonRoot;
    const user = security.runAsUser ?? pod.securityContext?.runAsUser;
    if (nonRoot !== true || user === undefined || user === 0) say('may run as root (runAsNonRoot, runAsUser ≠ 0)');
    if (security.allowPrivilegeEscalation !== false) say('allowPrivilegeEscalation is not false');
    if (security.privileged === true) say('is privileged');
    if (security.readOnlyRootFilesystem !== true) say('its root filesystem is writable');
    if (!security.capabilities?.drop?.includes('ALL')) say('does not drop ALL capabilities');
    const tag = imageTagOf(container.image);
    if (!tag) say(`image ${container.image} has no tag`);
    else if (tag === 'latest') say(`image ${container.image} is tagged latest`);
    for (const variable of container.env ?? [])
      if (variable.value !== undefined && looksSecret(variable.name, variable.value))
        say(`env ${variable.name} holds a secret in plain text`);
  }
  for (const volume of pod.volumes ?? [])
    if (volume.secret && ((volume.secret.defaultMode ?? 0o644) & 0o077) !== 0)
      problems.push(`${nameOf(deployment)}: secret volume ${volume.name} is readable beyond its owner (defaultMode)`);
  return problems;
}

/**
 * A setting's name that says secret, or a URL that carries a password. A path to a file of secrets is fine, and so is
 * a number of something that names one (ACCESS_TOKEN_TTL_SECONDS is a duration, not a token).
 */
export function looksSecret(name: string, value: string): boolean {
  if (/_FILE$|_CONFIG$/.test(name)) return false;
  const carriesPassword = /:\/\/[^/@\s:]+:[^/@\s]+@/.test(value);
  if (/_(SECONDS|MS|TTL|COUNT|LIMIT)$/.test(name) && /^\d+$/.test(value)) return false;
  return /SECRET|PASSWORD|TOKEN|PRIVATE|(^|_)KEY$/i.test(name) || carriesPassword;
}

function configMapProblems(configMap: KubeObject): string[] {
  const data = (configMap.data ?? {}) as Record<string, string>;
  return Object.entries(data)
    .filter(([name, value]) => looksSecret(name, value))
    .map(([name]) => `${nameOf(configMap)}: ${name} looks like a secret; secrets go in a Secret, mounted as a file`);
}

/** A setting of a container's ConfigMaps, else the service's default. */
function settingOf(deployment: DeploymentObject, objects: readonly KubeObject[], variable: string, fallback: number) {
  const names = deployment.spec.template.spec.containers
    .flatMap((c) => c.envFrom ?? [])
    .map((e) => e.configMapRef?.name);
  const values = objects
    .filter((o) => o.kind === 'ConfigMap' && names.includes(o.metadata.name))
    .map((o) => (o.data as Record<string, string> | undefined)?.[variable])
    .filter((value): value is string => value !== undefined);
  return values.length > 0 ? Number(values.at(-1)) : fallback;
}

const SERVER_DEFAULTS = serverSettings(0);

/**
 * The orchestrator's timings agree with the service's own stop (platform/http's serve and startService): the pod
 * is given longer than the drain (SHUTDOWN_DELAY_MS), the grace for requests in flight (SHUTDOWN_GRACE_MS) and the
 * release of background work, broker and database (RELEASE_TIMEOUT_MS each) take together; its readiness probe sees
 * the 503 of a stopping pod within the drain; and the gateway asks each upstream's readiness more often than that.
 * Only the services that serve /health/ready drain; the sample app does not.
 */
function stopTimingProblems(deployment: DeploymentObject, objects: readonly KubeObject[]): string[] {
  const pod = deployment.spec.template.spec;
  const readiness = pod.containers[0]?.readinessProbe;
  if (readiness?.httpGet?.path !== '/health/ready') return [];
  const problems: string[] = [];
  const say = (problem: string) => problems.push(`${nameOf(deployment)}: ${problem}`);
  const delay = settingOf(deployment, objects, 'SHUTDOWN_DELAY_MS', SERVER_DEFAULTS.shutdownDelayMs.fallback);
  const grace = settingOf(deployment, objects, 'SHUTDOWN_GRACE_MS', SERVER_DEFAULTS.shutdownGraceMs.fallback);
  const stopMs = delay + grace + 3 * RELEASE_TIMEOUT_MS;
  const terminationMs = (pod.terminationGracePeriodSeconds ?? 30) * 1000;
  if (terminationMs <= stopMs)
    say(
      `terminationGracePeriodSeconds (${terminationMs / 1000} s) is not above the service's stop (${stopMs / 1000} s)`,
    );
  const noticedMs =
    ((readiness.periodSeconds ?? 10) * (readiness.failureThreshold ?? 3) + (readiness.timeoutSeconds ?? 1)) * 1000;
  if (noticedMs > delay)
    say(
      `its readiness probe may take ${noticedMs / 1000} s to see a stop, longer than SHUTDOWN_DELAY_MS (${delay} ms)`,
    );
  const gateway = deployments(objects).find((d) => d.metadata.name === 'gateway');
  if (gateway && gateway !== deployment) {
    const check = settingOf(gateway, objects, 'UPSTREAM_CHECK_MS', GATEWAY_SETTINGS.upstreamCheckMs.fallback);
    if (check >= delay) say(`the gateway's UPSTREAM_CHECK_MS (${check}) is not below SHUTDOWN_DELAY_MS (${delay})`);
  }
  return problems;
}

const selects = (selector: Record<string, string>, labels: Record<string, string>) =>
  Object.entries(selector).every(([key, value]) => labels[key] === value);

/**
 * Each Deployment has a PodDisruptionBudget and a Service that select its pods; stock, sales and the gateway scale
 * on an autoscaler; the Ingress sends to a Service that exists.
 */
function companionProblems(objects: readonly KubeObject[]): string[] {
  const problems: string[] = [];
  const of = (kind: string) => objects.filter((o) => o.kind === kind) as (KubeObject & { spec: never })[];
  for (const deployment of deployments(objects)) {
    const labels = deployment.spec.template.metadata.labels;
    const name = deployment.metadata.name;
    if (!of('Service').some((s) => selects((s.spec as { selector: Record<string, string> }).selector, labels)))
      problems.push(`${nameOf(deployment)}: no Service selects its pods`);
    const budgeted = of('PodDisruptionBudget').some((b) =>
      selects((b.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels, labels),
    );
    const replicas = (deployment.spec as { replicas?: number }).replicas ?? 1;
    if (!budgeted && replicas > 1) problems.push(`${nameOf(deployment)}: no PodDisruptionBudget`);
    const scaled = of('HorizontalPodAutoscaler').some(
      (h) => (h.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name === name,
    );
    if (['stock', 'sales', 'gateway'].includes(name) && !scaled)
      problems.push(`${nameOf(deployment)}: no HorizontalPodAutoscaler`);
  }
  const services = new Set(of('Service').map((s) => s.metadata.name));
  for (const ingress of of('Ingress')) {
    const rules = (ingress.spec as { rules: { http: { paths: { backend: { service: { name: string } } }[] } }[] })
      .rules;
    for (const path of rules.flatMap((rule) => rule.http.paths))
      if (!services.has(path.backend.service.name))
        problems.push(`${nameOf(ingress)}: no Service ${path.backend.service.name}`);
  }
  return problems;
}
