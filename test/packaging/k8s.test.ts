/**
 * The Kubernetes manifest (packaging/k8s/lorekeeper.yaml): a Deployment of stateless replicas with
 * readiness on /health, a read-only root file system and a non-root user, and a Service in front.
 * kubeconform (when installed: PATH or ~/go/bin) validates it, strict, against the vendored
 * Kubernetes 1.33 schemas, and rejects a broken copy (so the check can fail).
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../support/mcp.ts";
import { makeTempDir } from "../support/tmp.ts";

const MANIFEST = join(REPO_ROOT, "packaging/k8s/lorekeeper.yaml");
type Doc = { kind: string; spec: Record<string, any> };
const docs = String(readFileSync(MANIFEST, "utf8"))
  .split(/^---$/m)
  .map((d) => Bun.YAML.parse(d) as Doc)
  .filter(Boolean);
const byKind = (k: string) => docs.find((d) => d.kind === k)!;

describe("Kubernetes manifest", () => {
  test("Deployment: replicas, readiness on /health, read-only root, non-root; Service selects it", () => {
    const dep = byKind("Deployment");
    const pod = dep.spec.template.spec;
    const c = pod.containers[0];
    expect(dep.spec.replicas).toBeGreaterThanOrEqual(2);
    expect(c.readinessProbe.httpGet.path).toBe("/health");
    // The Host check (DNS-rebinding protection) would refuse the pod IP: probes send a loopback Host.
    expect(c.readinessProbe.httpGet.httpHeaders).toContainEqual({ name: "Host", value: "127.0.0.1" });
    expect(c.securityContext.readOnlyRootFilesystem).toBe(true);
    expect(c.securityContext.allowPrivilegeEscalation).toBe(false);
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(pod.securityContext.runAsUser).not.toBe(0);
    // Everything the binary writes is a mounted volume: the store, the unpacked libraries, /tmp.
    expect(c.volumeMounts.map((m: { mountPath: string }) => m.mountPath).sort()).toEqual([
      "/data",
      "/home/nonroot/.cache",
      "/tmp",
    ]);
    expect(c.args.slice(0, 4)).toEqual(["serve", "--http", "--host", "0.0.0.0"]);
    expect(c.env.find((e: { name: string }) => e.name === "LOREKEEPER_HTTP_TOKEN").valueFrom.secretKeyRef.name).toBe(
      "lorekeeper",
    );
    // The Service's names in the namespace the manifest is applied to, not a fixed `default`:
    // every $(VAR) in the args is an env var of the container (Kubernetes leaves unknown ones as written).
    const hosts = c.args.flatMap((a: string, i: number) => (c.args[i - 1] === "--allowed-host" ? [a] : []));
    expect(hosts).toEqual([
      "lorekeeper",
      "lorekeeper.$(POD_NAMESPACE).svc",
      "lorekeeper.$(POD_NAMESPACE).svc.cluster.local",
    ]);
    const envNames = new Set(c.env.map((e: { name: string }) => e.name));
    for (const a of c.args as string[])
      for (const m of a.matchAll(/\$\((\w+)\)/g)) expect(envNames.has(m[1])).toBe(true);
    expect(c.env.find((e: { name: string }) => e.name === "POD_NAMESPACE").valueFrom.fieldRef.fieldPath).toBe(
      "metadata.namespace",
    );
    expect(byKind("Service").spec.selector).toEqual(dep.spec.selector.matchLabels);
  });

  const kubeconform =
    Bun.which("kubeconform") ??
    (existsSync(join(homedir(), "go/bin/kubeconform")) ? join(homedir(), "go/bin/kubeconform") : undefined);
  test.skipIf(!kubeconform)(
    "kubeconform -strict against the vendored 1.33 schemas" +
      (kubeconform
        ? ""
        : " — skipped: kubeconform is not installed " +
          "(go install github.com/yannh/kubeconform/cmd/kubeconform@latest)"),
    () => {
      const run = (file: string) =>
        Bun.spawnSync(
          [
            kubeconform!,
            "-strict",
            "-summary",
            "-schema-location",
            join(REPO_ROOT, "packaging/k8s/schemas/{{ .ResourceKind }}{{ .KindSuffix }}.json"),
            file,
          ],
          { stdout: "pipe", stderr: "pipe" },
        );
      const ok = run(MANIFEST);
      expect(ok.stdout.toString()).toContain("Valid: 4, Invalid: 0, Errors: 0, Skipped: 0");
      expect(ok.exitCode).toBe(0);
      const tmp = makeTempDir("lk-k8s-");
      try {
        const broken = join(tmp.dir, "broken.yaml");
        writeFileSync(
          broken,
          readFileSync(MANIFEST, "utf8").replace("readOnlyRootFilesystem: true", "readOnlyRootFileSystem: true"),
        );
        const bad = run(broken);
        expect(bad.exitCode).not.toBe(0);
        expect(bad.stdout.toString()).toContain("readOnlyRootFileSystem");
      } finally {
        tmp.cleanup();
      }
    },
  );
});
