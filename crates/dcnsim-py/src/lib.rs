// PyO3 bindings: written after the engine.
