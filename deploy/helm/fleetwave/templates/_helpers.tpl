{{/*
The agents' namespace: agentsNamespace.name, or "<release namespace>-agents".
*/}}
{{- define "fleetwave.agentsNamespace" -}}
{{- .Values.agentsNamespace.name | default (printf "%s-agents" .Release.Namespace) -}}
{{- end -}}

{{/*
Helm's own labels, on every object's metadata (never on selectors or pod templates, so an upgrade
never changes an immutable selector). HelmEquivalenceTest strips exactly these when it compares the
chart with the Kustomize tree.
*/}}
{{- define "fleetwave.helmLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end -}}

{{/*
An image reference from image.registry and one of image.controlPlane / image.nodeAgent (passed as
"image"): registry/repository@digest when a digest is set, else :tag, the tag defaulting to the
chart's appVersion.
*/}}
{{- define "fleetwave.image" -}}
{{- $registry := .root.Values.image.registry -}}
{{- $repository := ternary .image.repository (printf "%s/%s" $registry .image.repository) (empty $registry) -}}
{{- if .image.digest -}}
{{- printf "%s@%s" $repository .image.digest -}}
{{- else -}}
{{- printf "%s:%s" $repository (.image.tag | default .root.Chart.AppVersion) -}}
{{- end -}}
{{- end -}}

{{/*
Whether any host kind is enabled: the shared agent objects are rendered only then.
*/}}
{{- define "fleetwave.anyHostKind" -}}
{{- range $kind, $settings := .Values.hostKinds -}}
{{- if $settings.enabled -}}yes{{- end -}}
{{- end -}}
{{- end -}}

{{/*
The Kafka cluster's bootstrap Service, TLS listener port.
*/}}
{{- define "fleetwave.kafkaBootstrap" -}}
{{- printf "%s-kafka-bootstrap" .Values.kafka.cluster -}}
{{- end -}}
