#!/usr/bin/env bash
# The base every service image starts from: the project's own Node 24 (the binary the install brought, ADR 0017), the
# shared libraries it links, a non-root user, the CA bundle and /tmp; no shell, no package manager. Built from scratch
# with buildah, so no registry is needed. Prints the image's name.
#
#   deploy/base/build-base.sh            tags localhost/commerce/node:<node version>
set -euo pipefail
cd "$(dirname "$0")/../.."
export CONTAINERS_CONF="${CONTAINERS_CONF:-$PWD/deploy/containers.conf}"

node_binary=$(node_modules/.bin/node -p process.execPath)
node_version=$(node_modules/.bin/node -p process.versions.node)
image="localhost/commerce/node:${node_version}"
# The user every service runs as; the manifests' securityContext names the same numbers.
app_uid=10001

container=$(buildah from --quiet scratch)
trap 'buildah rm "$container" >/dev/null' EXIT
root=$(buildah mount "$container")

install -D -m 0755 "$node_binary" "$root/usr/local/bin/node"
# Each library under the path the dynamic loader looks for (ldd's), with the bytes of the file that path links to.
for library in $(ldd "$node_binary" | grep -o '/[^ ]*'); do
  install -D -m 0755 "$(readlink -f "$library")" "$root$library"
done

install -d -m 0755 "$root/etc/ssl/certs" "$root/app"
install -m 0644 /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
install -d -m 1777 "$root/tmp"
printf 'root:x:0:0:root:/root:/sbin/nologin\napp:x:%s:%s:app:/app:/sbin/nologin\n' "$app_uid" "$app_uid" >"$root/etc/passwd"
printf 'root:x:0:\napp:x:%s:\n' "$app_uid" >"$root/etc/group"
printf 'hosts: files dns\n' >"$root/etc/nsswitch.conf"
buildah unmount "$container" >/dev/null

buildah config \
  --user "${app_uid}:${app_uid}" \
  --workingdir /app \
  --env PATH=/usr/local/bin \
  --env NODE_ENV=production \
  --env SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
  --entrypoint '["/usr/local/bin/node"]' \
  --cmd '' \
  --label org.opencontainers.image.title="Node.js ${node_version}, distroless" \
  --label org.opencontainers.image.description="commerce-system's base: node, its libraries, user app (${app_uid})" \
  "$container"
# A fixed timestamp: the same binary and libraries give the same image, whenever it is built.
buildah commit --quiet --timestamp 0 --rm "$container" "$image" >/dev/null
trap - EXIT
echo "$image"
