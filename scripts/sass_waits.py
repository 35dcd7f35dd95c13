"""Prints the scoreboard fields of instructions in cuobjdump -sass output.

    python3 scripts/sass_waits.py SASS.txt [REGEX]

For each instruction matching REGEX (default: DMMA, HMMA, LDS, BAR, DEPBAR,
BRA) its address, text, stall count, the scoreboard its result is released
on (wr), the one its source operands are released on (rd), and the
scoreboards it waits for (wait, one bit each, SB5..SB0). These are the
control bits of sm_70 and later (bits 105-125 of an instruction: stall 4,
yield 1, write barrier 3, read barrier 3, wait mask 6), which cuobjdump
prints as the second word of each instruction. A read of a register that
another instruction writes through a scoreboard without waiting for it is
a hazard (gputest/results/h100/pipelined/README.md)."""
import re
import sys


def main(path, pattern=r"DMMA|HMMA|LDS|BAR|DEPBAR|BRA"):
    lines = open(path).read().split("\n")
    for i, line in enumerate(lines[:-1]):
        m = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?);\s+/\* (0x[0-9a-f]+) \*/", line)
        hi = re.search(r"/\* (0x[0-9a-f]+) \*/", lines[i + 1])
        if not m or not hi or not re.search(pattern, m.group(2)):
            continue
        ctl = int(hi.group(1), 16) >> 41
        stall, wr, rd, wait = ctl & 0xF, (ctl >> 5) & 7, (ctl >> 8) & 7, (ctl >> 11) & 0x3F
        bar = lambda b: "-" if b == 7 else f"SB{b}"
        print(f"{m.group(1)}  {m.group(2):50s} stall={stall:<2d} wr={bar(wr):4s} rd={bar(rd):4s} wait={wait:06b}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
