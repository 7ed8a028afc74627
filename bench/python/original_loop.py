"""The measuring half of the original milabench (milarun/lib/helpers.py and
experiment.py at tag mila-ao-2020-2), rewritten for the vision twins in this
folder so that they time and count exactly as the original's workloads do:

- init_torch: seed (1234 by default), torch threads = --workers or 1.
- RateLogger: examples/s in 0.5 s slices; a slice's left-over time and count
  carry into the next one (RateLogger.elapse); sync only when a slice closes.
- dataloop: the timed block is entered *before* the next batch is fetched, so
  the loader's wait is inside the measured time; the data iterator cycles
  epochs (a fresh DataLoader iterator each epoch, as `cycle`).
- report: one JSON line with perf = mean(rates[-20:-2]) (what
  `milarun summary` takes from a result) and the raw counts.

--cuda (the GPU twins, bench/python/gpu_twins.py): the device is cuda:0 and a
RateLogger syncs it when a slice closes (torch_settings.sync), unless the
workload passed sync=None as the original's did; without --cuda, no sync.
--deadline T (epoch seconds, ours): done() also once time.time() >= T, so a
driver can share a time budget among twins.
"""
import json
import time

import torch

AUTO = "auto"  # RateLogger(sync=AUTO): the device's sync, as init_torch's torch_settings.sync
_settings = {"sync": None, "deadline": None}
LAST_REPORT = {}  # the line report() printed last, for a driver running twins in-process


def add_init_torch_args(parser, workers=None):
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--workers", type=int, default=workers)
    parser.add_argument("--max-count", type=int, default=1000)
    parser.add_argument("--sample-duration", type=float, default=0.5)
    parser.add_argument("--cuda", action="store_true", help="train on cuda:0, sync at slice ends")
    parser.add_argument("--deadline", type=float, default=None, help="stop at this time.time() (ours)")


def init_torch(args):
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.workers or 1)
    cuda = getattr(args, "cuda", False)
    _settings["sync"] = torch.cuda.synchronize if cuda else None
    _settings["deadline"] = getattr(args, "deadline", None)
    if cuda:
        torch.cuda.manual_seed_all(args.seed)
    return torch.device("cuda:0" if cuda else "cpu")


class Counter:
    def __init__(self, count):
        self.count = count
        self.metrics = {}

    def set_count(self, n):
        self.count = n

    def log(self, **metrics):
        self.metrics.update(metrics)


class RateLogger:
    def __init__(self, max_count, sample_duration=0.5, sync=AUTO):
        self.sample_duration, self.max_count = sample_duration, max_count
        self.sync = _settings["sync"] if sync == AUTO else sync
        self.deadline = _settings["deadline"]
        self.current = 0.0  # seconds in the open slice
        self.count = 0  # examples in the open slice
        self.total_time, self.total_count = 0.0, 0
        self.rates, self.metrics = [], {}
        self.start = self.end = None

    def elapse(self, duration, count):
        self.current += duration
        self.count += count
        self.total_time += duration
        self.total_count += count
        if self.current >= self.sample_duration:
            nblocks = self.current / self.sample_duration
            unit = self.count / nblocks
            self.rates.extend([unit / self.sample_duration] * int(nblocks))
            self.current %= self.sample_duration
            self.count %= unit

    def block(self, count=1):
        """Context manager of one timed iteration (the original's `with wrapper() as it`)."""
        logger = self

        class Block:
            def __enter__(self):
                if logger.start is None:
                    logger.start = time.time()
                self.counter = Counter(count)
                self.t0 = time.time()
                return self.counter

            def __exit__(self, *exc):
                end = time.time()
                if exc[0] is None:
                    if logger.sync and logger.current + (end - self.t0) >= logger.sample_duration:
                        logger.sync()
                        end = time.time()
                    logger.elapse(end - self.t0, self.counter.count)
                    logger.metrics.update(self.counter.metrics)
                    logger.end = time.time()
                return False

        return Block()

    def done(self):
        return self.total_count >= self.max_count or (self.deadline is not None and time.time() >= self.deadline)

    def finalize(self):
        if self.current > 0:
            self.rates.append(self.count / self.current)
        self.current, self.count = 0, 0


def cycle(iterable):
    while True:
        yield from iterable


def dataloop(loader, wrapper):
    """Yields (counter, batch); the batch is fetched inside the timed block."""
    iterator = iter(cycle(loader))
    while True:
        with wrapper.block() as it:
            batch = next(iterator)
            yield it, batch
        if wrapper.done():
            break


def report(name, wrapper, **extra):
    wrapper.finalize()
    window = wrapper.rates[-20:-2]
    perf = sum(window) / len(window) if window else float("nan")
    line = {"workload": name, "perf": perf, "slices": len(wrapper.rates), "count": wrapper.total_count,
            "time": wrapper.total_time, "wall_time": (wrapper.end or 0) - (wrapper.start or 0),
            "threads": torch.get_num_threads(), **extra}
    line.update({k: v for k, v in wrapper.metrics.items() if isinstance(v, (int, float))})
    print(json.dumps(line), flush=True)
    LAST_REPORT.clear()
    LAST_REPORT.update(line)
    return line
