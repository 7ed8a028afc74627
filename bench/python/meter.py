"""Same measurement as milarun's RateMeter: examples/s per 0.5 s slice; perf =
mean(rates[-20:-2]). Used by the PyTorch-eager reference scripts in this folder."""
import sys, time, json

class Meter:
    def __init__(self, max_count, slice_s=0.5):
        self.max_count, self.slice_s = max_count, slice_s
        self.count, self.rates = 0, []
        self.t0 = self.slice_start = time.perf_counter()
        self.slice_count = 0

    def step(self, n):
        """Adds n examples; returns False once max_count is reached."""
        self.count += n
        self.slice_count += n
        now = time.perf_counter()
        if now - self.slice_start >= self.slice_s:
            self.rates.append(self.slice_count / (now - self.slice_start))
            self.slice_start, self.slice_count = now, 0
        return self.count < self.max_count

    def report(self, name):
        window = self.rates[-20:-2]
        perf = sum(window) / len(window) if window else float("nan")
        print(json.dumps({"workload": name, "perf": perf, "count": self.count,
                          "slices": len(self.rates), "wall": time.perf_counter() - self.t0}))

def max_count(default):
    return int(sys.argv[1]) if len(sys.argv) > 1 else default
