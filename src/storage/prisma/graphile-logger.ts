import type { LogFunctionFactory } from "graphile-worker";
import type { Logger } from "../../log/logger.js";

/**
 * graphile-worker's log lines through our logger. Its `info` lines (a pool connected, a job
 * finished) are routine for us, so they go out at `debug`; warnings and errors stay as they are.
 */
export function graphileLogFactory(logger: Logger): LogFunctionFactory {
  return (scope: Parameters<LogFunctionFactory>[0]) => {
    const scoped = logger.child({
      component: "graphile-worker",
      ...(scope.workerId === undefined ? {} : { graphileWorker: scope.workerId }),
      ...(scope.jobId === undefined ? {} : { graphileJob: scope.jobId }),
    });
    return (level, message, meta) => {
      const error = meta.error ?? meta.fatalError;
      const fields = error === undefined ? {} : { err: error };
      switch (level) {
        case "error":
          scoped.error(fields, message);
          return;
        case "warning":
          scoped.warn(fields, message);
          return;
        case "info":
        case "debug":
          scoped.debug(fields, message);
          return;
        default:
          scoped.debug(fields, message);
      }
    };
  };
}
