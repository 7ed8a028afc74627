"""Timed training loop shared by the image twins (dcgan.py, reso.py, fast_style.py)."""
import time


def images_per_second(loader, warmup, steps, train_step):
    """Calls train_step(batch) -> images in it, over the loader (epochs repeated),
    for warmup + steps steps; returns (images/s over the last `steps`, images, seconds)."""
    step, images, start = 0, 0, None
    while step < warmup + steps:
        for batch in loader:
            if step == warmup:
                start = time.perf_counter()
            n = train_step(batch)
            step += 1
            if step > warmup:
                images += n
            if step >= warmup + steps:
                break
    elapsed = time.perf_counter() - start
    return images / elapsed, images, elapsed
