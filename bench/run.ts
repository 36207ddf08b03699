// npm run bench [name...]: runs every bench/*.bench.ts (or the named ones) and prints their figures.
import { readdirSync } from 'node:fs';

const wanted = process.argv.slice(2);
const files = readdirSync(new URL('.', import.meta.url))
  .filter((file) => file.endsWith('.bench.ts'))
  .filter((file) => wanted.length === 0 || wanted.some((name) => file.startsWith(name)))
  .sort();
if (files.length === 0) {
  console.error(`no benchmark matches ${wanted.join(', ')}: the files are bench/*.bench.ts`);
  process.exit(2);
}
for (const file of files) {
  console.log(`\n## ${file}`);
  const module = (await import(`./${file}`)) as { run: () => Promise<void> };
  await module.run();
}
