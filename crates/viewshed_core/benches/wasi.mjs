// Runs a benchmark built for wasm32-wasip1 under Node's WASI, so the core's benches can be
// timed as WebAssembly on the same machine as native code:
//
//   cargo bench -p viewshed_core --bench words --target wasm32-wasip1 --no-run
//   node crates/viewshed_core/benches/wasi.mjs <the .wasm cargo printed> --bench
//
// Criterion writes its results under the working directory, as it does natively.
import { readFile } from "node:fs/promises";
import { WASI } from "node:wasi";
import process from "node:process";

const [wasmPath, ...args] = process.argv.slice(2);
const wasi = new WASI({
  version: "preview1",
  args: [wasmPath, ...args],
  env: process.env,
  preopens: { ".": process.cwd() },
});
const module = await WebAssembly.compile(await readFile(wasmPath));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
process.exitCode = wasi.start(instance);
