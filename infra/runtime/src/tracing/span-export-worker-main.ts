// The entry of a program's span export worker (WorkerSpanProcessor starts it): the worker's only side effect.
import { parentPort, workerData } from 'node:worker_threads';
import { serveSpanExport } from './serve-span-export';
import type { ExportWorkerData } from './span-wire';

if (parentPort) serveSpanExport(parentPort, workerData as ExportWorkerData);
