"""Speech preprocessing in the manner of TF1-era text-to-speech code (ours,
after keithito/tacotron's util/audio.py, written for librosa 0.5-0.8):
a positional ``librosa.filters.mel``, ``librosa.stft`` on 0.8's default
padding, ``librosa.core.load`` resampling to the model's rate.

    python tacotron_audio_style.py IN.wav OUT.npz

writes the linear and mel magnitudes tests/test_port_scan_librosa.py
compares with librosa 0.8's STFT.
"""

import sys

import librosa
import librosa.filters
import numpy as np

SAMPLE_RATE = 16000
N_FFT = 512
HOP_LENGTH = 128
WIN_LENGTH = 400
N_MELS = 40


def load_wav(path):
    return librosa.core.load(path, sr=SAMPLE_RATE)[0]


def _stft(y):
    return librosa.stft(y=y, n_fft=N_FFT, hop_length=HOP_LENGTH, win_length=WIN_LENGTH)


def _build_mel_basis():
    return librosa.filters.mel(SAMPLE_RATE, N_FFT, n_mels=N_MELS)


def spectrograms(y):
    linear = np.abs(_stft(y))
    return linear, np.dot(_build_mel_basis(), linear)


def main(wav_path, out_path):
    linear, mel = spectrograms(load_wav(wav_path))
    np.savez(out_path, linear=linear, mel=mel)
    print("frames", linear.shape[1])


if __name__ == "__main__":
    main(*sys.argv[1:])
