// Why: one line per step as it runs (people watch a deployment being checked), the same steps as JSON
// for a machine, and one verdict: any fault fails the run. A check returns what it saw; a thrown error
// in a check is the doctor's own failure and is reported as such, never as a fault of the server.
// Every string a server controls (an error message, a server name, a header) reaches the report through
// `clean`: a control character could otherwise retitle the window, clear the screen or write the
// clipboard (OSC 52) of whoever reads the report.

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** The text with each control character (C0, DEL, C1, bidi overrides) written as a visible escape. */
export const clean = (text) =>
  String(text).replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });

const cleanFault = (f) => Object.fromEntries(Object.entries(f).map(([k, v]) => [k, typeof v === "string" ? clean(v) : v]));

/**
 * A step returns one of:
 *   { detail }                            it passed
 *   { detail, fault: { id, shows, why, fix } }  a fault the host would hit
 *   { skip: reason }                     it does not apply (no views declared, no token given)
 * `ms` in the result replaces the step's own time (the time of the request that matters).
 */
export function createReport({ json = false, out = process.stdout } = {}) {
  const steps = [];
  const print = (line) => json || out.write(line + "\n");

  async function step(name, fn) {
    const t0 = performance.now();
    let r;
    try {
      r = (await fn()) ?? {};
    } catch (err) {
      r = { error: String(err?.stack ?? err) };
    }
    const ms = r.ms ?? Math.round(performance.now() - t0);
    const faults = (r.faults ?? (r.fault ? [r.fault] : [])).map(cleanFault);
    const detail = r.detail ?? r.skip ?? r.error;
    const entry = {
      name: clean(name),
      ms,
      status: r.error ? "error" : r.skip ? "skip" : faults.length ? "fault" : "ok",
      detail: detail === undefined ? undefined : clean(detail),
      faults,
    };
    steps.push(entry);
    const mark = { ok: "✓", fault: "✗", skip: "-", error: "!" }[entry.status];
    print(`${mark} ${entry.name}${entry.detail ? `: ${entry.detail.split("\\x0a")[0]}` : ""}  (${ms} ms)`);
    for (const f of faults) {
      print(`    fault: ${f.id}`);
      print(`    host shows: ${f.shows}`);
      print(`    why: ${f.why}`);
      print(`    fix: ${f.fix}`);
    }
    return entry;
  }

  const faults = () => steps.flatMap((s) => s.faults);
  const failed = () => steps.some((s) => s.status === "fault" || s.status === "error");

  function finish(url) {
    const summary = {
      url: clean(url),
      ok: !failed(),
      faults: faults().length,
      errors: steps.filter((s) => s.status === "error").length,
      steps,
    };
    if (json) out.write(JSON.stringify(summary, null, 2) + "\n");
    else
      print(
        summary.ok
          ? `\nno fault found (${steps.filter((s) => s.status === "ok").length} checks passed, ${steps.filter((s) => s.status === "skip").length} did not apply)`
          : `\n${summary.faults} fault(s)${summary.errors ? `, ${summary.errors} check(s) could not run` : ""}: see the fixes above`,
      );
    return summary;
  }

  return { step, finish, steps };
}

/** A fault with its id, from the catalogue in faults.mjs. */
export const fault = (id, body) => ({ id, ...body });
