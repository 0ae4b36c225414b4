#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
# embed-bytes.py IN OUT NAME: write OUT, a C file defining
# "const unsigned char NAME[]" with IN's bytes and "const size_t NAME_len".
import sys

src, out, name = sys.argv[1:4]
data = open(src, 'rb').read()
with open(out, 'w') as f:
    f.write('/* generated from %s by embed-bytes.py */\n#include <stddef.h>\n\n' %
            src.rsplit('/', 1)[-1])
    f.write('const unsigned char %s[] = {\n' % name)
    for i in range(0, len(data), 12):
        f.write('\t' + ' '.join('0x%02x,' % b for b in data[i:i + 12]) + '\n')
    f.write('};\nconst size_t %s_len = %d;\n' % (name, len(data)))
