{{/*
Names and labels shared by every template.
*/}}

{{/* The chart's short name: nameOverride or the chart name. */}}
{{- define "baton.name" -}}
{{- .Values.nameOverride | default .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
The base name of every object: fullnameOverride, else the release name followed by the chart's
short name, unless the release name already contains it ("baton-operator", not
"baton-operator-baton-operator"). Kept to 63 characters, the limit of a label value.
*/}}
{{- define "baton.fullname" -}}
{{- $short := include "baton.name" . -}}
{{- $joined := ternary .Release.Name (printf "%s-%s" .Release.Name $short) (contains $short .Release.Name) -}}
{{- .Values.fullnameOverride | default $joined | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
Name of cluster-scoped objects (ClusterRole, ClusterRoleBinding): the full name with the release
namespace, so that releases of the same name in two namespaces do not collide.
*/}}
{{- define "baton.clusterScopedName" -}}
{{- printf "%s-%s" (include "baton.fullname" .) .Release.Namespace -}}
{{- end -}}

{{/*
The MutatingWebhookConfiguration's name: cluster-scoped, so it carries the release namespace too
(a DNS subdomain, unlike a ClusterRole's name: no trailing "-" when the namespace is unknown, as
under `helm lint`).
*/}}
{{- define "baton.webhookConfigurationName" -}}
{{- include "baton.clusterScopedName" . | trimSuffix "-" -}}
{{- end -}}

{{/* The labels that select the operator pods; they never change across upgrades. */}}
{{- define "baton.selectorLabels" -}}
app.kubernetes.io/name: {{ include "baton.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Labels on every object of the release. */}}
{{- define "baton.labels" -}}
{{ include "baton.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: operator
app.kubernetes.io/part-of: baton
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end -}}

{{/* The ServiceAccount the operator runs as. */}}
{{- define "baton.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- .Values.serviceAccount.name | default (include "baton.fullname" .) -}}
{{- else -}}
{{- .Values.serviceAccount.name | default "default" -}}
{{- end -}}
{{- end -}}

{{/* repository@digest when a digest is given, else repository:tag (tag defaults to appVersion). */}}
{{- define "baton.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}
{{- end -}}

{{/*
What the operator does in each watched namespace: exactly the verbs it uses, never "*".
The RBAC test in operator/src/test/java/dev/baton/operator/install/ keeps the same table.
*/}}
{{- define "baton.namespacedRules" -}}
# Exactly what the operator does, checked by its tests against every request it makes
# (ChartRbacAudit); README.md, "What the RBAC grants", says what each is for.
# Candidate pods: watched, and their role label and annotations written (a JSON Patch of the keys
# that change, guarded by the resourceVersion it was computed from, so a stale view never
# overwrites someone else's labels).
- apiGroups: [""]
  resources: ["pods"]
  verbs: ["get", "list", "watch", "patch"]
# The custom resources: watched; a patch adds or removes a finalizer (RedisLocks carry the
# operator's; LeaderGroups only lose the one earlier releases added).
- apiGroups: ["baton.dev"]
  resources: ["leadergroups", "redislocks"]
  verbs: ["get", "list", "watch", "patch"]
- apiGroups: ["baton.dev"]
  resources: ["leadergroups/status", "redislocks/status"]
  verbs: ["update"]
# An Event on every leadership change; a repeat is read and its count patched.
- apiGroups: [""]
  resources: ["events"]
  verbs: ["create", "get", "patch"]
# Redis connection Secrets named by spec.redis.secretRef.
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get"]
{{- if .Values.redisAcl.perGroupUsers }}
# redisAcl.perGroupUsers: each group's and lock's Secret with its own Redis user, created and, on a
# rotation, updated (deleted with its owner by the garbage collector).
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["create", "update"]
{{- end }}
# Routing: the leader Services are watched for the Routed condition and the split-brain check; with
# spec.service the operator owns a selector-less Service and writes its EndpointSlice.
- apiGroups: [""]
  resources: ["services"]
  verbs: ["get", "list", "watch", "create", "patch", "delete"]
- apiGroups: ["discovery.k8s.io"]
  resources: ["endpointslices"]
  verbs: ["list", "watch", "create", "patch", "delete"]
{{- if .Values.webhook.enabled }}
# Injected agents: per LeaderGroup, a Role (get and watch on pods, which the operator holds itself)
# bound to its pods' service accounts, and in relay mode a NetworkPolicy for the leader-only port;
# each owned by the group and deleted with it by the garbage collector.
- apiGroups: ["rbac.authorization.k8s.io"]
  resources: ["roles", "rolebindings"]
  verbs: ["get", "create", "update"]
- apiGroups: ["networking.k8s.io"]
  resources: ["networkpolicies"]
  verbs: ["get", "create", "update"]
{{- end }}
{{- end -}}

{{/*
The operator's environment for the agent injection webhook (README.md, "Agent injection").
*/}}
{{- define "baton.webhookEnv" -}}
{{- $fullname := include "baton.fullname" . -}}
- name: BATON_WEBHOOK_ENABLED
  value: "true"
- name: BATON_WEBHOOK_PORT
  value: {{ .Values.webhook.port | quote }}
- name: BATON_WEBHOOK_SERVICE
  value: {{ $fullname }}-webhook
- name: BATON_WEBHOOK_NAMESPACE
  valueFrom:
    fieldRef:
      fieldPath: metadata.namespace
# The agent ships in the operator's image: pods get the agent of the operator that injected them.
- name: BATON_AGENT_IMAGE
  value: {{ include "baton.image" . | quote }}
- name: BATON_AGENT_REDIS_SECRET
  value: {{ .Values.webhook.agentRedisSecret | quote }}
- name: BATON_WEBHOOK_NATIVE_SIDECAR
  value: {{ .Values.webhook.nativeSidecar | quote }}
{{- if .Values.webhook.certManager.enabled }}
- name: BATON_WEBHOOK_CERT_DIR
  value: /etc/baton/webhook-tls
{{- else }}
# The operator's own CA, kept in this Secret; the caBundle of this configuration follows it.
- name: BATON_WEBHOOK_CA_SECRET
  value: {{ $fullname }}-webhook-ca
- name: BATON_WEBHOOK_CONFIGURATION
  value: {{ include "baton.webhookConfigurationName" . }}
{{- end }}
{{- end -}}
