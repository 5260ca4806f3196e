// Every module the pages import, below their entry points, loads without a DOM: nothing
// touches document or window when it is imported (they are read when called), so each
// part can be tested here on its own.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";

const STATIC = new URL("../../static/", import.meta.url);

test("the shared, tablet and floor modules import in Node, with no DOM", async () => {
  const modules = ["live.js", ...["live", "tablet", "floor"].flatMap((dir) =>
    readdirSync(new URL(`${dir}/`, STATIC)).filter((name) => name.endsWith(".js")).map((name) => `${dir}/${name}`))];
  assert.ok(modules.length >= 15, `only ${modules.length} modules found`);
  for (const name of modules) {
    const exported = await import(new URL(name, STATIC));
    assert.ok(Object.keys(exported).length > 0, `${name} exports nothing`);
  }
});
