# Exercise 00-1: answers written from the task text alone (notebooks/00_setup.ipynb), without reading the checker.
# %% wrong: misses one provider that must have a key (dashscope is left out)
needs_key = ["deepseek", "openai"]
# %% wrong: also lists custom and classroom, whose key is optional (key_required=False), not "必须"
needs_key = ["deepseek", "dashscope", "openai", "custom", "classroom"]
# %% wrong: writes the providers' labels from the table instead of their names (the PRESETS keys)
needs_key = ["DeepSeek", "Alibaba DashScope (Qwen)", "OpenAI"]
# %% wrong: writes the key environment variables instead of the provider names
needs_key = ["DEEPSEEK_API_KEY", "DASHSCOPE_API_KEY", "OPENAI_API_KEY"]
# %% wrong: adds ollama (a local server, needs no key) because it is not the embedded model
needs_key = ["deepseek", "dashscope", "openai", "ollama"]
# %% wrong: computed from PRESETS but only checks key_env, so classroom and custom (optional key) slip in
from course_lib.providers import PRESETS

needs_key = [name for name, preset in PRESETS.items() if preset.key_env]
# %% wrong: one comma-separated string instead of a list of names
needs_key = "deepseek, dashscope, openai"
# %% right: the three cloud providers written by hand, in another order
needs_key = ["openai", "deepseek", "dashscope"]
# %% right: computed from the PRESETS table: a key variable AND the key is required
from course_lib.providers import PRESETS

needs_key = []
for name, preset in PRESETS.items():
    if preset.key_env and preset.key_required:
        needs_key.append(name)
# %% right: plain literal in table order
needs_key = ["deepseek", "dashscope", "openai"]
