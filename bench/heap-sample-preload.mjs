// Loaded into a service process with `node --import` by `npm run bench -- --heap-sample FILE`
// (bench/heap-sample.ts): V8's sampling heap profiler, keeping the samples of objects already
// collected, so the profile says what the load allocates (garbage included), not what is live.
// The first SIGUSR2 starts sampling, the second writes the profile to FILE (a .heapprofile,
// readable by Chrome's DevTools) and stops; `npx tsx bench/heap-sample.ts FILE` sums it.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";

const file = process.env.ROUNDTABLE_BENCH_HEAP_SAMPLE;
if (file) {
  const session = new Session();
  session.connect();
  let sampling = false;
  process.on("SIGUSR2", () => {
    if (!sampling) {
      sampling = true;
      session.post("HeapProfiler.startSampling", {
        samplingInterval: 16_384,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
      return;
    }
    session.post("HeapProfiler.stopSampling", (error, result) => {
      if (!error) writeFileSync(file, JSON.stringify(result.profile));
    });
  });
}
