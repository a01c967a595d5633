import sys
from pathlib import Path

# tests/sitegen.py builds the hand-written sites the tests share
sys.path.insert(0, str(Path(__file__).parent))
