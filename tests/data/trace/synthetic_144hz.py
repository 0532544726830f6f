#!/usr/bin/env python3
"""Writes synthetic_144hz.csv: a PresentMon 1.x capture of a v-synced game on a 144 Hz display.

No licensed real 144 Hz capture was found (see SOURCES.md), so this one is made up, in the
exact PresentMon 1.6 column layout. 600 game rows (swap chain Synthetic144.exe / 4242 / 0x...1):
every 100th displayed frame stays 2 refreshes, every 150th row is a dropped frame (Dropped=1,
0.000 display columns, the next displayed frame's interval spans the gap as PresentMon writes it);
300 dwm.exe rows at 72 Hz interleaved. Deterministic: no randomness.
"""
PERIOD = 1000.0 / 144.0  # ms
HEADER = ("Application,ProcessID,SwapChainAddress,Runtime,SyncInterval,PresentFlags,AllowsTearing,"
          "PresentMode,Dropped,TimeInSeconds,MsBetweenPresents,MsBetweenDisplayChange,MsInPresentAPI,"
          "MsUntilRenderComplete,MsUntilDisplayed")

rows = []
t = 1.0  # s
displayed = 0
for i in range(600):
    jitter = ((i * 37) % 11 - 5) * 0.05  # -0.25 .. +0.25 ms, repeating
    if i % 150 == 149:
        # A frame presented half a refresh after the previous one, replaced before the vblank.
        present = PERIOD / 2
        t += present / 1000
        rows.append((t, f"Synthetic144.exe,4242,0x0000000000000001,DXGI,1,0,0,Hardware: Independent Flip,1,"
                        f"{t:.6f},{present:.3f},0.000,0.100,1.000,0.000"))
        continue
    displayed += 1
    refreshes = 2 if displayed % 100 == 0 else 1
    present = PERIOD * refreshes + jitter
    interval = PERIOD * refreshes + (0.001 if i % 2 else -0.001)
    t += present / 1000
    rows.append((t, f"Synthetic144.exe,4242,0x0000000000000001,DXGI,1,0,0,Hardware: Independent Flip,0,"
                    f"{t:.6f},{present:.3f},{interval:.3f},0.100,1.000,{8.0 + jitter:.3f}"))
for j in range(300):
    td = 1.0 + j * 2 * PERIOD / 1000 + 0.0003
    rows.append((td, f"dwm.exe,1200,0x00000224B280A1C0,DXGI,1,0,0,Hardware: Legacy Flip,0,"
                     f"{td:.6f},{2 * PERIOD:.3f},{2 * PERIOD:.3f},0.050,0.500,{2 * PERIOD:.3f}"))
rows.sort(key=lambda r: r[0])
with open("synthetic_144hz.csv", "w", newline="\n") as f:
    f.write(HEADER + "\n")
    for _, line in rows:
        f.write(line + "\n")
