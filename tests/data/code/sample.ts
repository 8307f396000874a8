// A small queue, for the Code tests.
import { EventEmitter } from "events";

export interface Job {
  id: number;
  run(): Promise<void>;
}

export class Queue extends EventEmitter {
  private jobs: Job[] = [];

  /** Adds a job and starts it when the queue is idle. */
  push(job: Job): void {
    this.jobs.push(job);
    if (this.jobs.length === 1) {
      this.next();
    }
  }

  private async next(): Promise<void> {
    const job = this.jobs[0];
    try {
      await job.run();
    } finally {
      this.jobs.shift();
      this.emit("done", job.id);
    }
  }
}

namespace Util {
  export function delay(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }
}

enum Level { Low, High }
