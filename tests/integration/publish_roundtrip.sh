# opkit publish against a real nginx (WebDAV PUT, plain and TLS): the file
# arrives intact with its checksum headers, 5xx and 429 are retried, other 4xx
# are not, TLS is verified, every failure is one error line, and a refused
# upload leaves nothing behind.
source "$(dirname "$0")/common.sh"

# Only 127.0.0.1 is spoken to: a CI proxy must not be asked for it.
unset http_proxy https_proxy all_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY

nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$nginx_bin" ] || fail "nginx not found (scripts/setup.sh installs it)"

# --- a private nginx on a free port, writing only inside $work/nginx
read -r port tls_port < <(python3 -c '
import socket
s, t = socket.socket(), socket.socket()
s.bind(("127.0.0.1", 0)); t.bind(("127.0.0.1", 0))
print(s.getsockname()[1], t.getsockname()[1])')
base="http://127.0.0.1:$port"
tls_base="https://127.0.0.1:$tls_port"
ngx="$work/nginx"
mkdir -p "$ngx/logs" "$ngx/store" "$ngx/tmp"
# A self-signed certificate: trusted only through --cacert.
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$ngx/key.pem" -out "$ngx/cert.pem" 2>/dev/null || fail "openssl could not make a certificate"
user_line=""
if [ "$(id -u)" -eq 0 ]; then
  user_line="user $(id -un) $(id -gn);" # else the workers would run as nobody and could not write the store
fi
cat >"$ngx/nginx.conf" <<CONF
$user_line
worker_processes 1;
pid $ngx/nginx.pid;
error_log $ngx/logs/error.log;
events { worker_connections 64; }
http {
  log_format publish '\$request_method \$uri \$status len=\$http_content_length sha=\$http_x_checksum_sha256 digest=\$http_digest team=\$http_x_team';
  access_log $ngx/logs/access.log publish;
  client_body_temp_path $ngx/tmp/body;
  proxy_temp_path $ngx/tmp/proxy;
  fastcgi_temp_path $ngx/tmp/fastcgi;
  uwsgi_temp_path $ngx/tmp/uwsgi;
  scgi_temp_path $ngx/tmp/scgi;
  client_max_body_size 4m; # checked before any location's return
  server {
    listen 127.0.0.1:$port;
    root $ngx/store;
    location /upload/ {
      dav_methods PUT;
      create_full_put_path on;
    }
    location /broken/ { return 500; }
    location /busy/ { return 429; }
    location /forbidden/ { return 403; }
  }
  server {
    listen 127.0.0.1:$tls_port ssl;
    ssl_certificate $ngx/cert.pem;
    ssl_certificate_key $ngx/key.pem;
    root $ngx/store;
    location /upload/ {
      dav_methods PUT;
      create_full_put_path on;
    }
  }
}
CONF
"$nginx_bin" -p "$ngx" -e "$ngx/logs/error.log" -c "$ngx/nginx.conf" -g 'daemon off;' &
nginx_pid=$!
trap 'kill "$nginx_pid" 2>/dev/null || true; wait "$nginx_pid" 2>/dev/null || true' EXIT
for _ in $(seq 50); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  kill -0 "$nginx_pid" 2>/dev/null || { cat "$ngx/logs/error.log" >&2; fail "nginx did not start"; }
  sleep 0.1
done

log="$ngx/logs/access.log"
# requests_for <uri>: how many requests the access log shows for it
requests_for() {
  grep -c "^PUT $1 " "$log" || true
}

# --- a 3 MB upload: stored byte for byte, checksum headers and -H sent, quiet on a non-terminal
head -c 3000000 /dev/urandom >pkg.tar.gz
sha=$(sha256sum pkg.tar.gz | cut -d' ' -f1)
digest=$(python3 -c 'import base64, hashlib, sys; print(base64.b64encode(hashlib.sha256(open(sys.argv[1], "rb").read()).digest()).decode())' pkg.tar.gz)
run_opkit 0 publish pkg.tar.gz "$base/upload/pkg/x.tar.gz" --header 'X-Team: ops'
expect_contains "$work/out" "^published pkg\.tar\.gz -> $base/upload/pkg/x\.tar\.gz \(3000000 bytes, sha256 $sha, HTTP 201\)$"
[ ! -s "$work/err" ] || { cat "$work/err" >&2; fail "stderr is not a terminal, yet opkit wrote to it"; }
[ "$(sha256sum <"$ngx/store/upload/pkg/x.tar.gz" | cut -d' ' -f1)" = "$sha" ] || fail "the stored file differs from the source"
expect_contains "$log" "^PUT /upload/pkg/x\.tar\.gz 201 len=3000000 sha=$sha digest=sha-256=${digest//+/\\+} team=ops$"

# Replacing it is a success too (WebDAV answers 204).
run_opkit 0 publish pkg.tar.gz "$base/upload/pkg/x.tar.gz"
expect_contains "$work/out" 'HTTP 204\)$'

# --- 5xx: retried with backoff (1 + 3 requests), then one error line naming the status
run_opkit 1 publish pkg.tar.gz "$base/broken/x.tar.gz"
expect_one_error_line
expect_contains "$work/err" "^opkit: error: $base/broken/x\.tar\.gz: upload failed: HTTP 500 Internal Server Error \(after 4 attempts\)$"
[ "$(requests_for /broken/x.tar.gz)" -eq 4 ] || { cat "$log" >&2; fail "expected 4 requests to /broken/"; }

# 429 is retried too; --retries bounds it.
run_opkit 1 publish pkg.tar.gz "$base/busy/x.tar.gz" --retries 1
expect_one_error_line
expect_contains "$work/err" 'upload failed: HTTP 429 Too Many Requests \(after 2 attempts\)$'
[ "$(requests_for /busy/x.tar.gz)" -eq 2 ] || { cat "$log" >&2; fail "expected 2 requests to /busy/"; }

# --- other 4xx: final at once
run_opkit 1 publish pkg.tar.gz "$base/forbidden/x.tar.gz"
expect_one_error_line
expect_contains "$work/err" "^opkit: error: $base/forbidden/x\.tar\.gz: upload failed: HTTP 403 Forbidden$"
[ "$(requests_for /forbidden/x.tar.gz)" -eq 1 ] || { cat "$log" >&2; fail "a 403 was retried"; }

# A refused upload into the store leaves nothing there (413: over client_max_body_size).
head -c 5000000 /dev/urandom >big.tar.gz
run_opkit 1 publish big.tar.gz "$base/upload/pkg/big.tar.gz"
expect_one_error_line
expect_contains "$work/err" 'upload failed: HTTP 413 Request Entity Too Large$'
[ ! -e "$ngx/store/upload/pkg/big.tar.gz" ] || fail "a refused upload left a file in the store"
[ -z "$(ls -A "$ngx/tmp/body" 2>/dev/null)" ] || fail "a refused upload left a temporary body behind"

# --- nobody listening: transport errors are retried, then one line naming the network (exit 4)
run_opkit 4 publish pkg.tar.gz "http://127.0.0.1:1/x.tar.gz"
expect_one_error_line
expect_contains "$work/err" "^opkit: error: http://127.0.0.1:1/x\.tar\.gz: upload failed: the network does not reach it: .*(connect|refused).*\(after 4 attempts; check the network"

# --- TLS: an untrusted certificate is refused (and not retried); --cacert trusts it
run_opkit 1 publish pkg.tar.gz "$tls_base/upload/pkg/tls.tar.gz"
expect_one_error_line
expect_contains "$work/err" "^opkit: error: $tls_base/upload/pkg/tls\.tar\.gz: upload failed: .*certificate[^(]*$"
[ ! -e "$ngx/store/upload/pkg/tls.tar.gz" ] || fail "an upload over untrusted TLS arrived"
run_opkit 0 publish pkg.tar.gz "$tls_base/upload/pkg/tls.tar.gz" --cacert "$ngx/cert.pem"
expect_contains "$work/out" "-> $tls_base/upload/pkg/tls\.tar\.gz \(3000000 bytes, sha256 $sha, HTTP 201\)$"
[ "$(sha256sum <"$ngx/store/upload/pkg/tls.tar.gz" | cut -d' ' -f1)" = "$sha" ] || fail "the file stored over TLS differs"

# --- usage errors (exit 2), before any request
before=$(wc -l <"$log")
run_opkit 2 publish missing.tar.gz "$base/upload/pkg/missing.tar.gz"
expect_one_error_line
expect_contains "$work/err" 'missing\.tar\.gz: no such file'
run_opkit 2 publish pkg.tar.gz "ftp://127.0.0.1:$port/upload/x.tar.gz"
expect_one_error_line
expect_contains "$work/err" "unsupported URL scheme 'ftp'"
run_opkit 2 publish pkg.tar.gz "$base/upload/pkg/y.tar.gz" --header 'no colon'
expect_one_error_line
expect_contains "$work/err" "'no colon': invalid HTTP header"
run_opkit 2 publish pkg.tar.gz "$base/upload/pkg/y.tar.gz" --cacert "$work/no-such-ca.pem"
expect_one_error_line
[ "$(wc -l <"$log")" -eq "$before" ] || fail "a usage error still sent a request"
[ ! -e "$ngx/store/upload/pkg/missing.tar.gz" ] && [ ! -e "$ngx/store/upload/pkg/y.tar.gz" ] || fail "a usage error stored a file"

# --- on a terminal, the upload is on the status line (and erased); stdout keeps the result
# script(1) (util-linux) gives opkit a pseudo-terminal and records everything written to it.
command -v script >/dev/null || fail "script(1) is missing: apt-get install util-linux"
script -qec "'$OPKIT' publish pkg.tar.gz '$base/upload/pkg/tty.tar.gz'" "$work/tty.log" >/dev/null </dev/null
expect_contains "$work/tty.log" 'uploading tty\.tar\.gz \([0-9]+:[0-9]{2}\): 100% of 3\.0 MB, [0-9.]+ MB/s'
expect_contains "$work/tty.log" "published pkg\.tar\.gz -> $base/upload/pkg/tty\.tar\.gz"

echo "publish_roundtrip: ok"
