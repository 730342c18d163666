#!/usr/bin/env python3
"""Fails when a C++ or Python function in the given directories is longer than a limit.

usage: check_function_length.py [--max N] DIR_OR_FILE...

Scans .cc, .h and .py files.

C++ (.cc, .h): comments, string and character literals (raw strings too) are blanked
out, then braces are matched. A function is a brace block opened at namespace or class scope
after a parameter list (`) {`, `) const {`, `) -> T {`, a constructor's `) : a_(x) {`); its
length is counted from the first line of its signature to its closing brace, both included.
Lambdas and blocks inside a function count towards that function.

Python (.py): parsed with the `ast` module. Every `def` (and `async def`) is counted on its own,
from its `def` line (decorators not included) to its last line, both included; a nested
function is reported under its dotted name (`outer.inner`, `Class.method`) and also counts
towards the function around it.

Prints each function over the limit as `path:line: NAME is N lines (limit M)` and exits 1 if
there is any (2 when no file could be checked or a .py file does not parse).
"""
import ast
import os
import re
import sys

CONTROL = re.compile(r'^(if|for|while|switch|catch|else|do|return|case)\b')


def strip(text):
    """Comments and literals replaced by spaces; newlines kept, so lines stay where they are."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif c == 'R' and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == '_')):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = ')' + m.group(1) + '"'
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append('""' + re.sub(r'[^\n]', ' ', text[i + 2:j]))
            i = j
        elif c == '"' or (c == "'" and not (i > 0 and text[i - 1].isalnum())):
            # A digit separator (1'000) is not a literal: it follows a digit.
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            j = min(j + 1, n)
            out.append(c + re.sub(r'[^\n]', ' ', text[i + 1:j - 1]) + c)
            i = j
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def functions(text):
    """(name, first line, last line) of each function, lines counted from 1."""
    s = strip(text)
    found = []
    # Per open brace: 'scope' (namespace, class, extern, enum, initialiser) or 'function'.
    stack = []
    header_start = 0  # where the text before the next brace at this scope starts
    paren = 0
    i = 0
    while i < len(s):
        c = s[i]
        inside = any(kind == 'function' for kind, _, _ in stack)
        if c == '(':
            paren += 1
        elif c == ')':
            paren = max(0, paren - 1)
        elif c in ';' and not inside and paren == 0:
            header_start = i + 1
        elif c == '{':
            if inside or paren > 0:
                stack.append(('block', 0, ''))
            else:
                header = s[header_start:i]
                kind, name = classify(header)
                first = header_start + (len(header) - len(header.lstrip()))
                stack.append((kind, first, name))
                header_start = i + 1
        elif c == '}':
            if stack:
                kind, first, name = stack.pop()
                if kind == 'function':
                    found.append((name, s.count('\n', 0, first) + 1, s.count('\n', 0, i) + 1))
            if not any(kind == 'function' for kind, _, _ in stack) and paren == 0:
                header_start = i + 1
        i += 1
    return found


def classify(header):
    h = ' '.join(header.split())
    h = re.sub(r'^(public|private|protected)\s*:\s*', '', h)
    h = re.sub(r'^(template\s*<[^{]*?>\s*)+', '', h)
    if not h or '(' not in h or CONTROL.match(h):
        return 'scope', ''
    if re.search(r'(^|\s)(namespace|enum|union)\b', h) and not re.search(r'\)\s*$', h):
        return 'scope', ''
    if re.match(r'^(class|struct)\b', h) and not re.search(r'\)\s*(const\s*)?$', h):
        return 'scope', ''
    if h.rstrip().endswith('='):
        return 'scope', ''
    # A constructor's initialiser list with a braced member (`a_{x}`) is not a body.
    tail = re.search(r'\)\s*:\s*[\w:]+\s*[({].*$', h)
    if tail and re.search(r'[\w>]\s*$', h) and not re.search(r'\)\s*$', h):
        return 'scope', ''
    if not re.search(r'\)\s*(const|noexcept|override|final|mutable|volatile|&|&&|\s)*'
                     r'(->\s*[^()]+)?$|\)\s*:.*[)}]\s*$', h):
        return 'scope', ''
    m = re.search(r'([~\w:]+(?:\s*operator\s*[^\s(]+)?)\s*\(', h)
    return 'function', m.group(1) if m else '?'


def python_functions(text, path):
    """(dotted name, def line, last line) of each function of a Python file."""
    found = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                if not isinstance(child, ast.ClassDef):
                    found.append((name, child.lineno, child.end_lineno))
                visit(child, name + '.')
            else:
                visit(child, prefix)

    visit(ast.parse(text, filename=path), '')
    return found


SOURCE_SUFFIXES = ('.cc', '.h', '.py')


def main(argv):
    limit = 80
    paths = []
    args = iter(argv)
    for a in args:
        if a == '--max':
            limit = int(next(args))
        else:
            paths.append(a)
    files = []
    for p in paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                files += [os.path.join(root, n) for n in names if n.endswith(SOURCE_SUFFIXES)]
        else:
            files.append(p)
    if not files:
        print('check_function_length: no .cc, .h or .py files in', ' '.join(paths))
        return 2
    bad = 0
    for f in sorted(files):
        with open(f, encoding='utf-8', errors='replace') as fh:
            text = fh.read()
        if f.endswith('.py'):
            try:
                found = python_functions(text, f)
            except SyntaxError as e:
                print(f'{f}:{e.lineno}: cannot parse: {e.msg}')
                return 2
        else:
            found = functions(text)
        for name, first, last in found:
            n = last - first + 1
            if n > limit:
                print(f'{f}:{first}: {name} is {n} lines (limit {limit})')
                bad += 1
    if bad:
        print(f'{bad} function(s) over {limit} lines: split them')
        return 1
    print(f'check_function_length: {len(files)} files, every function at most {limit} lines')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
