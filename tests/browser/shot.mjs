// shot.mjs: dev helper: screenshots of the dashboard against the dev driver.
//   node shot.mjs [outdir] [rate] [replay.jsonl]
import { startDevServer } from './devserver.mjs';
import { launch, artifactsDir } from './lib.mjs';
const out = process.argv[2] || artifactsDir();
const srv = await startDevServer({ rate: +(process.argv[3] || 3000), replay: process.argv[4] || null });
for (const scheme of ['light', 'dark']) {
  const b = await launch({ colorScheme: scheme });
  await b.page.goto(srv.url);
  await b.page.waitForTimeout(2500);
  await b.page.screenshot({ path: `${out}/dev-${scheme}.png` });
  // select a row
  await b.page.click('#table-rows .row:nth-child(5)');
  await b.page.waitForTimeout(300);
  await b.page.screenshot({ path: `${out}/dev-${scheme}-detail.png` });
  console.log(scheme, b.errors);
  await b.close();
}
srv.close();
