#!/usr/bin/env python3
"""Expected results of small Jinja snippets, rendered by Python Jinja2 in the
exact environment transformers uses for chat templates (its compiled
template: sandbox, trim_blocks, lstrip_blocks, loopcontrols, its tojson,
raise_exception, namespace, dict).

Writes tests/chat/testdata/jinja_cases.json: [{"name", "template",
"context", "output"} or {..., "error"}]. The C++ interpreter test renders each
snippet and must produce the same bytes (or an error where Jinja2 raised).

Usage: python3 tools/chat/make_jinja_cases.py
"""

import json
import os

import jinja2
from transformers.utils.chat_template_utils import _compile_jinja_template

MSGS = [
    {"role": "system", "content": "sys"},
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": "yo", "tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}]},
]

CASES = [
    # --- whitespace control, trim_blocks / lstrip_blocks
    ("ws_plain", "a\n{% if true %}\nb\n{% endif %}\nc\n", {}),
    ("ws_lstrip", "a\n    {% if true %}\n    b\n    {% endif %}\nc", {}),
    ("ws_minus", "a   {%- if true -%}   b   {%- endif -%}   c", {}),
    ("ws_plus", "a\n  {%+ if true +%}\nb\n  {%+ endif %}\nc", {}),
    ("ws_var_no_trim", "{{ 'x' }}\n{{ 'y' }}\n", {}),
    ("ws_var_minus", "a  {{- 'x' -}}  b", {}),
    ("ws_comment", "a\n  {# comment #}\nb {#- c -#} c", {}),
    ("ws_inline_tags", "x {% if true %}y{% endif %} z\n", {}),
    ("ws_tag_after_text", "text {% if true %}\nA{% endif %}\n", {}),
    ("ws_trailing_newline_kept_once", "a\n\n", {}),
    ("ws_crlf", "a\r\n{% if true %}\r\nb\r\n{% endif %}\r\n", {}),
    ("ws_two_tags_line", "  {% if true %}{% if true %}\nX\n  {% endif %}{% endif %}\n", {}),
    ("raw_block", "{% raw %}{{ not }} {% evaluated %}{% endraw %}!", {}),
    # --- literals and printing
    ("print_types", "{{ 1 }} {{ 1.0 }} {{ 1.5e300 }} {{ 0.1 + 0.2 }} {{ 1e-7 }} {{ 123456789012345678.0 }} {{ -0.0 }} {{ none }} {{ true }} {{ False }}", {}),
    ("print_containers", "{{ [1, 'a', none, true, 2.5] }} {{ {'k': 'v', 'n': [1]} }} {{ (1, 2) }} {{ (1,) }} {{ \"it's\" }} {{ ['it\\'s', 'a\"b'] }}", {}),
    ("print_undefined", "[{{ nothing }}][{{ d.missing }}][{{ d['missing'] }}]", {"d": {}}),
    ("string_escapes", "{{ 'a\\nb\\tc\\\\d\\'e\\u00e9\\x41' }}|{{ \"q\\\"q\" }}|{{ 'adj' 'acent' }}", {}),
    # --- arithmetic and operators
    ("arith", "{{ 7 // 2 }} {{ -7 // 2 }} {{ 7 % 3 }} {{ -7 % 3 }} {{ 7 / 2 }} {{ 2 ** 10 }} {{ 2 * 'ab' }} {{ [1] + [2] }} {{ 1 + 2.5 }} {{ 10 - 3 * 2 }}", {}),
    ("concat", "{{ 'a' ~ 1 ~ none ~ true ~ [1] }} {{ 'x' ~ undefined_thing ~ 'y' }}", {}),
    ("compare", "{{ 1 < 2 < 3 }} {{ 1 == 1.0 }} {{ 'a' < 'b' }} {{ [1, 2] < [1, 3] }} {{ true == 1 }} {{ none == none }} {{ 'a' != 'a' }}", {}),
    ("in_ops", "{{ 'a' in 'cat' }} {{ 2 in [1, 2] }} {{ 'k' in d }} {{ 'z' not in d }} {{ 'x' in undefined_var }}", {"d": {"k": 1}}),
    ("logic", "{{ 0 or 'b' }} {{ 'a' and 'b' }} {{ not [] }} {{ none or [] }} {{ 1 if false }}|{{ 'y' if 0 else 'n' }}", {}),
    ("unary", "{{ -3 }} {{ +3 }} {{ -(2 + 1) }} {{ - 2.5 }}", {}),
    # --- attribute / item access and slicing
    ("access", "{{ m.role }} {{ m['role'] }} {{ m.get('role') }} {{ m.get('x', 'dflt') }} {{ m.get('x') }} {{ l[0] }} {{ l[-1] }} {{ s[1] }} {{ l.0 }}", {"m": {"role": "user"}, "l": [1, 2, 3], "s": "abc"}),
    ("slicing", "{{ l[1:] }} {{ l[:-1] }} {{ l[::-1] }} {{ l[::2] }} {{ s[1:3] }} {{ s[::-1] }} {{ l[5:] }} {{ l[-2:] }} {{ s[:] }}", {"l": [1, 2, 3, 4], "s": "héllo"}),
    ("dict_methods", "{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %} {{ d.keys() | list }} {{ d.values() | list }}", {"d": {"b": 1, "a": 2}}),
    ("dict_key_shadowing_method", "{{ d.items is defined }} {{ d['items'] }}", {"d": {"items": "x"}}),
    # --- string methods
    ("str_methods", "{{ ' a b '.strip() }}|{{ 'xxaxx'.strip('x') }}|{{ '  a'.lstrip() }}|{{ 'a  '.rstrip() }}|{{ 'a,b,,c'.split(',') }}|{{ ' a  b '.split() }}|{{ 'a b c'.split(' ', 1) }}|{{ 'abc'.startswith('ab') }}|{{ 'abc'.endswith(('x', 'c')) }}|{{ 'aXa'.replace('a', 'b') }}|{{ 'Hello'.upper() }}|{{ 'Hello'.lower() }}|{{ 'hello world'.title() }}|{{ 'hello'.capitalize() }}|{{ 'a-b'.find('-') }}|{{ ','.join(['a', 'b']) }}|{{ '{} and {}'.format(1, 'x') }}|{{ 'a\\nb'.splitlines() }}|{{ 'abc'.count('b') }}|{{ 'x=1'.rsplit('=', 1) }}", {}),
    ("str_strip_unicode", "[{{ '\u00a0 x \u3000'.strip() }}][{{ s | trim }}]", {"s": "\n\t héllo \u2003"}),
    # Python's full case mapping and case classes beyond the common scripts
    # (SpecialCasing, final sigma, title case digraphs, ligatures, dotted I).
    ("unicode_case_full", "{{ s | upper }}|{{ s | lower }}|{{ s | title }}|{{ s | capitalize }}|{{ s.upper() }}|{{ s.lower() }}|{{ s.title() }}|{{ s.capitalize() }}", {"s": "stra\u00dfe \ufb01ne \ufb00 \u0130stanbul \u0149 \u01c6em \u01c4 \u1f80 \u0390 \u1e96 \u03a3\u039f\u03a6\u039f\u03a3 \u039f\u03a3. \u03a3 a\u03a3b \u1e9e \u0587 \u0561\u0582 \u10d0\u10d1 \u13a0\u13a1 \uab70 \U00010428\U00010400 \U0001e900\U0001e922 \u2c65 \u0250 \u1c80 \u1d8e"}),
    ("unicode_case_sigma", "{{ 'ΣΑΣ ΟΔΟΣ' | lower }}|{{ 'ΌΣΟ\u0301Σ' | lower }}|{{ 'Σ' | lower }}|{{ 'aΣ' | lower }}|{{ 'Σa' | lower }}|{{ 'a\u00adΣ\u00ad' | lower }}|{{ 'ΟΔΟΣ' | capitalize }}|{{ 'οδος-σας' | title }}|{{ 'ΑΣ ΑΣ' | title }}", {}),
    ("unicode_case_tests", "{{ 'ǅ'.istitle() if false else 'ǅ'.isupper() }} {{ 'ǆ'.islower() }} {{ 'ß'.islower() }} {{ 'ſ'.islower() }} {{ 'ⅷ'.islower() }} {{ 'Ⅷ'.isupper() }} {{ 'ǅ' is upper }} {{ 'ǅ' is lower }} {{ 'ΣΑΣ' is upper }} {{ 'ᾳ' is lower }} {{ '١٢٣'.isdigit() }} {{ '²'.isdigit() }} {{ '½'.isdigit() }} {{ '½'.isalnum() }} {{ 'Ⅷ'.isalnum() }} {{ 'ab' ~ '\u0301' is lower }} {{ 'ab\u0301'.isalpha() }} {{ '日本'.isalpha() }} {{ 'ǅ'.isalpha() }} {{ '\u3000\u2028'.isspace() }} {{ '\u200b'.isspace() }}", {}),
    ("unicode_sort_lower", "{{ ['Éa', 'éb', 'ÉC', 'Straße', 'STRASSE', 'strasse'] | sort | join(',') }}|{{ {'Ω': 1, 'ω': 2, 'Ä': 3, 'a': 4} | dictsort | list }}|{{ ['ǅ', 'ǆ', 'Ǆ'] | unique | list }}", {}),
    ("unicode_case", "{{ s | upper }}|{{ s | lower }}|{{ s | title }}|{{ s | capitalize }}|{{ s.upper() }}|{{ s.title() }}|{{ '1st x2y' | title }}|{{ 'straße' | upper }}", {"s": "élan ÑANDÚ ŁÓDŹ αβγ ΣΟΦΊΑ привет ÿ ｆｕｌｌ 1st"}),
    # --- loops
    ("loop_vars", "{% for x in l %}{{ loop.index }}{{ loop.index0 }}{{ loop.first }}{{ loop.last }}{{ loop.length }}{{ loop.revindex }}{{ loop.previtem }}{{ loop.nextitem }};{% endfor %}", {"l": ["a", "b", "c"]}),
    ("loop_else", "{% for x in [] %}x{% else %}empty{% endfor %}|{% for x in l if x > 1 %}{{ x }}{{ loop.length }}{% else %}none{% endfor %}", {"l": [1, 2, 3]}),
    ("loop_break_continue", "{% for x in range(10) %}{% if x == 2 %}{% continue %}{% endif %}{% if x == 5 %}{% break %}{% endif %}{{ x }}{% endfor %}", {}),
    ("loop_scoping", "{% set y = 0 %}{% for x in [1, 2] %}{% set y = y + x %}[{{ y }}]{% endfor %}{{ y }}", {}),
    ("loop_namespace", "{% set ns = namespace(total=0, items=[]) %}{% for x in [1, 2, 3] %}{% set ns.total = ns.total + x %}{% endfor %}{{ ns.total }} {{ ns.items }}", {}),
    ("loop_unpack", "{% for a, b in [[1, 2], [3, 4]] %}{{ a }}{{ b }}{% endfor %} {% for k, v in d | dictsort %}{{ k }}{{ v }}{% endfor %}", {"d": {"b": 2, "a": 1}}),
    ("loop_dict_iter", "{% for k in d %}{{ k }}{% endfor %} {% for c in 'héj' %}[{{ c }}]{% endfor %}", {"d": {"x": 1, "y": 2}}),
    ("loop_nested", "{% for a in [1, 2] %}{% for b in [3, 4] %}{{ loop.index }}{{ a }}{{ b }} {% endfor %}{{ loop.index }}|{% endfor %}", {}),
    ("loop_cycle", "{% for x in range(5) %}{{ loop.cycle('a', 'b') }}{% endfor %}", {}),
    ("range_forms", "{{ range(3) | list }} {{ range(1, 4) | list }} {{ range(10, 0, -3) | list }}", {}),
    ("reverse_walk", "{% for m in messages[::-1] %}{{ (messages|length - 1) - loop.index0 }}{{ m.role }} {% endfor %}", {"messages": MSGS}),
    # --- set
    ("set_forms", "{% set a = 1 %}{% set b, c = 2, 3 %}{% set t = 4, 5 %}{{ a }}{{ b }}{{ c }}{{ t }}", {}),
    ("set_block", "{% set x %}  inner {{ 1 + 1 }}\n{% endset %}[{{ x }}]{% set y | upper %}abc{% endset %}{{ y }}", {}),
    ("set_in_if_leaks", "{% if true %}{% set z = 'in' %}{% endif %}{{ z }}", {}),
    # --- macros
    ("macro_defaults", "{% macro m(a, b='B', c=none) %}{{ a }}{{ b }}{{ c }}{% endmacro %}{{ m(1) }} {{ m(1, 2) }} {{ m(1, c=3) }} {{ m('x', b='y', c='z') }}", {}),
    ("macro_recursion", "{% macro fmt(v) %}{% if v is mapping %}{{ '{' }}{% for k, x in v | dictsort %}{{ k }}:{{ fmt(x) }}{% if not loop.last %},{% endif %}{% endfor %}{{ '}' }}{% elif v is sequence and v is not string %}[{% for x in v %}{{ fmt(x) }}{% endfor %}]{% else %}{{ v }}{% endif %}{% endmacro %}{{ fmt({'b': [1, {'c': true}], 'a': 'x'}) }}", {}),
    ("macro_sees_globals", "{% set g = 1 %}{% macro m() %}{{ g }}{{ outer }}{% endmacro %}{% set g = 2 %}{{ m() }}", {"outer": "O"}),
    ("macro_trim_result", "{% macro m() %}\n  padded  \n{% endmacro %}[{{ m() | trim }}]", {}),
    ("call_block", "{% macro wrap(tag) %}<{{ tag }}>{{ caller() }}</{{ tag }}>{% endmacro %}{% call wrap('b') %}bold{% endcall %}", {}),
    ("filter_block", "{% filter upper %}hello {{ 'x' }}{% endfilter %}", {}),
    ("varargs_kwargs", "{% macro m(a) %}{{ a }}{{ varargs }}{{ kwargs }}{% endmacro %}{{ m(1, 2, 3, k=4) }}", {}),
    # --- filters
    ("f_tojson", "{{ v | tojson }}|{{ v | tojson(indent=2) }}|{{ v | tojson(ensure_ascii=true) }}|{{ v | tojson(separators=(',', ':')) }}|{{ v | tojson(sort_keys=true) }}", {"v": {"z": "é\"\n<>&'", "a": [1, 2.0, None, True, {}], "e": [], "n": {"x": 1.5e-10}}}),
    ("f_tojson_indent_str", "{{ v | tojson(indent='\\t') }}", {"v": {"a": [1, {"b": 2}]}}),
    ("f_tojson_astral", "{{ v | tojson(ensure_ascii=True) }} {{ v | tojson }}", {"v": "🚀 日本 \u007f \u0001"}),
    ("f_strings", "{{ ' x ' | trim }}|{{ 'xax' | trim('x') }}|{{ 'aB' | upper }}|{{ 'aB' | lower }}|{{ 'hello wORLD' | capitalize }}|{{ 'hello-world (x)y [z]' | title }}|{{ 'aaa' | replace('a', 'b', 2) }}|{{ 5 | string }}|{{ none | string }}|{{ 'a' | safe }}|{{ '<&>' | e }}", {}),
    ("f_length_first_last", "{{ l | length }} {{ s | length }} {{ d | length }} {{ l | first }} {{ l | last }} {{ s | first }} {{ s | last }} {{ [] | first }}|{{ l | count }}", {"l": [1, 2, 3], "s": "héllo", "d": {"a": 1}}),
    ("f_join", "{{ l | join }} {{ l | join(', ') }} {{ users | join(', ', attribute='name') }}", {"l": [1, "a", None], "users": [{"name": "x"}, {"name": "y"}]}),
    ("f_default", "{{ u | default('d') }} {{ none | default('d') }} {{ '' | default('d') }} {{ '' | default('d', true) }} {{ 0 | d('z', boolean=true) }} {{ false | default(true) }}", {}),
    ("f_numbers", "{{ '42' | int }} {{ '4.7' | int }} {{ 'x' | int }} {{ 'x' | int(7) }} {{ 3.9 | int }} {{ '2.5' | float }} {{ 3 | float }} {{ -3 | abs }} {{ -2.5 | abs }} {{ 2.5 | round }} {{ 3.5 | round }} {{ 2.675 | round(2) }} {{ 2.1 | round(0, 'ceil') }} {{ 2.9 | round(method='floor') }} {{ 7 | round }}", {}),
    ("f_list_items", "{{ 'ab' | list }} {{ d | items | list }} {{ d | dictsort }} {{ d | dictsort(reverse=true) }} {{ d | dictsort(by='value') }} {{ u | items | list }}", {"d": {"b": 1, "A": 3, "a": 2}}),
    ("f_select", "{{ msgs | selectattr('role', 'equalto', 'user') | map(attribute='content') | list }} {{ msgs | rejectattr('role', 'eq', 'user') | list | length }} {{ [0, 1, 2, none] | select | list }} {{ [1, 2, 3, 4] | select('odd') | list }} {{ [1, 2, 3] | reject('even') | list }} {{ msgs | selectattr('tool_calls') | list | length }} {{ msgs | selectattr('tool_calls', 'defined') | map(attribute='role') | first }}", {"msgs": MSGS}),
    ("f_map", "{{ ['a', 'b'] | map('upper') | list }} {{ [1, 2] | map('string') | join('-') }} {{ msgs | map(attribute='missing', default='?') | list }} {{ [' a ', 'b '] | map('trim') | list }} {{ ['x'] | map('replace', 'x', 'y') | list }}", {"msgs": MSGS}),
    ("f_sort_unique", "{{ [3, 1, 2] | sort }} {{ ['b', 'A', 'a'] | sort }} {{ ['b', 'A', 'a'] | sort(case_sensitive=true) }} {{ [3, 1] | sort(reverse=true) }} {{ us | sort(attribute='n') | map(attribute='n') | list }} {{ ['a', 'A', 'b', 'a'] | unique | list }} {{ [1, 2, 1] | unique | list }}", {"us": [{"n": 2}, {"n": 1}]}),
    ("f_misc", "{{ [1, 2, 3] | sum }} {{ [1, 2] | max }} {{ ['b', 'a'] | min }} {{ [1, 2] | reverse | list }} {{ 'abc' | reverse }} {{ 'a b  c' | wordcount }} {{ 'x\\ny' | indent(2) }}|{{ 'x\\ny' | indent(2, true) }}|{{ '%s-%d' | format('a', 3) }} {{ 'ab' | center(6) }}| {{ [1, 2, 3] | batch(2) | list }}", {}),
    ("f_attr", "{{ m | attr('role') }}", {"m": {"role": "r"}}),
    # --- tests
    ("tests_types", "{{ 1 is number }} {{ 1.5 is float }} {{ 1 is integer }} {{ true is boolean }} {{ true is number }} {{ 's' is string }} {{ {} is mapping }} {{ [] is sequence }} {{ 's' is sequence }} {{ {} is iterable }} {{ none is none }} {{ u is undefined }} {{ u is defined }} {{ u is sequence }} {{ 1 is sequence }} {{ true is true }} {{ 1 is true }} {{ false is false }} {{ range is callable }}", {}),
    ("tests_values", "{{ 3 is odd }} {{ 4 is even }} {{ 9 is divisibleby 3 }} {{ 9 is divisibleby(4) }} {{ 'a' is equalto 'a' }} {{ 2 is eq 2 }} {{ 2 is ne 3 }} {{ 'A' is upper }} {{ 'a' is lower }} {{ 1 is in [1, 2] }} {{ 3 is gt 2 }} {{ 3 is lt 2 }} {{ 2 is ge 2 }} {{ 2 is le 1 }} {{ 1 is sameas 1 }} {{ 1 is sameas true }} {{ x is not none }}", {"x": 0}),
    # --- globals and transformers additions
    ("globals", "{{ dict(a=1, b='x') }} {{ namespace(a=1).a }} {{ namespace({'k': 2}).k }}", {}),
    ("raise_exception", "before{{ raise_exception('bad input') }}", {}),
    # --- chat-template-like snippets
    ("chatml_like", "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] | trim + '<|im_end|>' + '\\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}", {"messages": MSGS, "add_generation_prompt": True}),
    ("tool_args_items", "{% for k, v in tc.arguments | items %}<{{ k }}>{{ v | tojson if v is not string else v }}{% endfor %}", {"tc": {"arguments": {"a": "x", "b": [1, 2], "c": {"d": None}}}}),
    ("content_parts", "{% for item in content %}{% if item.type == 'text' %}{{ item.text }}{% elif 'image' in item %}<img>{% endif %}{% endfor %}", {"content": [{"type": "text", "text": "a"}, {"type": "image", "image": "x"}]}),
    # --- errors
    ("err_undefined_attr", "{{ a.b.c }}", {}),
    ("err_add_str_int", "{{ 'a' + 1 }}", {}),
    ("err_add_undefined", "{{ 'a' + nothing }}", {}),
    ("err_unknown_filter", "{{ 1 | no_such_filter }}", {}),
    ("err_unknown_test", "{{ 1 is no_such_test }}", {}),
    ("err_syntax_unclosed", "{% if true %}x", {}),
    ("err_syntax_bad_expr", "{{ 1 + }}", {}),
    ("err_div_zero", "{{ 1 / 0 }}", {}),
    ("err_iterate_int", "{% for x in 5 %}{% endfor %}", {}),
    ("err_not_callable", "{{ 'x'() }}", {}),
    ("err_set_non_namespace", "{% set d = {} %}{% set d.x = 1 %}", {}),
    ("err_tojson_undefined", "{{ {'a': nothing} | tojson }}", {}),
    ("err_compare_undefined", "{{ nothing > 1 }}", {}),
    ("err_list_mutation", "{% set l = [1] %}{{ l.append(2) }}", {}),
    ("err_unknown_tag", "{% frobnicate %}", {}),
    ("err_unexpected_end", "{% endfor %}", {}),
]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    out_path = os.path.join(repo, "tests/chat/testdata/jinja_cases.json")
    cases = []
    for name, template, context in CASES:
        case = {"name": name, "template": template, "context": context}
        try:
            case["output"] = _compile_jinja_template(template).render(**context)
        except Exception as e:  # noqa: BLE001
            case["error"] = f"{type(e).__name__}: {e}"
        cases.append(case)
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump({"generator": "tools/chat/make_jinja_cases.py", "jinja2_version": jinja2.__version__,
                   "cases": cases}, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"wrote {len(cases)} cases to {out_path}")
    for c in cases:
        if "error" in c:
            print(f"  {c['name']}: {c['error']}")


if __name__ == "__main__":
    main()
