"""The typed configuration of one installation: a TOML file, its defaults and validation."""

from .config import Config, ConfigError, check_config, default_text, load_config

__all__ = ["Config", "ConfigError", "check_config", "default_text", "load_config"]
