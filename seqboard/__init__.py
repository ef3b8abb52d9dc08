"""seqboard: the app that ties sensing, the rules engine and the indicators together.

Where to look, by what you are after:

* the modes, as typed: ``commands/`` (one module per sub-command: ``play``, ``referee``,
  ``demo``, ``stacks``, ``setup``, ``calibrate``, ...), and what a mode needs beyond the
  referee's loop in ``modes/`` (the Pi's seats: ``computer``; SEQUENCE STACKS at the
  table: ``stacks``; the first-run guide: ``setup``); remote play and the club view in
  ``remote/``;
* the game being refereed: ``session`` (every change judged, the record written, the
  events sent out), ``loop`` (the main loop's commands and keys), ``app`` (wiring a mode
  together), ``recorder`` (the game record on disk), ``settings`` (the configuration);
* where observations come from: ``sources/`` (the camera and the sensor matrix;
  ``table`` the simulated table of the demo; ``calibrator`` the camera's calibration steps);
* where verdicts go: ``indicators/`` (GPIO LEDs and buzzer, the LED matrix, the terminal,
  the voice) and ``dashboard/`` (the page).

The development tools (fitting and tuning the search players' weights) are not part of the
package that runs on the Pi: they are in ``tools/`` at the top of the repository.
"""

__version__ = "0.1.0"
