// node docs-check.mjs DOM.html SPEC.json CHROMIUM.log: every operation of SPEC appears in the DOM
// Redoc rendered (anchor "operation/<operationId>" and the summary text), and the browser console
// reports no blocked or failed load.
import { readFileSync } from "node:fs";

const [domFile, specFile, logFile] = process.argv.slice(2);
const dom = readFileSync(domFile, "utf8");
const text = dom.replace(/<[^>]*>/g, " ").replace(/&amp;/g, "&").replace(/&lt;/g, "<").replace(/&gt;/g, ">")
  .replace(/&#39;|&apos;/g, "'").replace(/&quot;/g, '"').replace(/\s+/g, " ");
const spec = JSON.parse(readFileSync(specFile, "utf8"));
let passed = 0, failed = 0;
const check = (ok, what) => { if (ok) passed++; else { failed++; console.error(`FAIL ${what}`); } };

for (const [path, item] of Object.entries(spec.paths)) {
  for (const method of ["get", "post", "put", "patch", "delete"]) {
    const op = item[method];
    if (!op) continue;
    check(dom.includes(`id="operation/${op.operationId}"`), `${method.toUpperCase()} ${path}: no operation/${op.operationId} anchor in /docs`);
    check(text.includes(op.summary), `${method.toUpperCase()} ${path}: summary "${op.summary}" not rendered in /docs`);
  }
}
check(passed > 0, "the contract lists no operation");
const problems = readFileSync(logFile, "utf8").split("\n")
  .filter((l) => /CONSOLE/.test(l) && /Content Security Policy|Failed to load|ERR_|Refused/.test(l));
for (const p of problems) console.error(`browser: ${p}`);
check(problems.length === 0, "the page tried to load something it may not (see above)");
console.log(`docs: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
