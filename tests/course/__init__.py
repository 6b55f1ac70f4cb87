"""The course's checks (``topicsup.course``): each right answer passes, each typical wrong
answer gets its own hint, and each lesson's solutions notebook passes every check."""
